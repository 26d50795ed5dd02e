// The reasons media refuses with (the media family of compat.md): a bad request body
// (INVALID_REQUEST_BODY), a task of no team of the key (TASK_NOT_FOUND), a catalogue record
// changed under an upload or an import (CONFLICT), an upstream that could not do the task
// (SERVICE_NOT_AVAILABLE: the task's job tries again).
import { AppError, invalid, type Reason } from '../../lib/errors.ts';

export const MEDIA_REASONS = ['INVALID_REQUEST_BODY', 'TASK_NOT_FOUND', 'CONFLICT', 'SERVICE_NOT_AVAILABLE'] as const satisfies readonly Reason[];

/** A field broke a rule. */
export const bad = (field: string, rule: string): AppError => invalid(field, rule, 'INVALID_REQUEST_BODY');

/**
 * An input image that breaks a rule of the format or of the limits (`rule`: one of
 * lib/png-decode.ts's PNG_RULES, or `max_side`), named with its field: a 400 before anything
 * is written.
 */
export function badImage(field: string, rule: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('INVALID_REQUEST_BODY', `${field}: ${message}`, { field, rule, ...extra });
}

/** A task of the caller's team that does not exist; another team's reads the same. */
export function taskNotFound(id: string): AppError {
  return new AppError('TASK_NOT_FOUND', `task ${id} not found`, { task_id: id });
}

/**
 * A prompt, or a model name written into one, holds the web UI's extra-network syntax
 * (`<lora:…>`, `<lyco:…>`, `<hypernet:…>`, any `<type:…>`): refused, never stripped (a1111.ts says why).
 */
export function extraNetworkRefused(field: string, found: string): AppError {
  return new AppError('INVALID_REQUEST_BODY',
    `${field}: holds "${found}", the web UI's extra-network syntax (<lora:…>, <lyco:…>, <hypernet:…>), which Gantry does not pass on: `
      + 'name LoRAs in request.loras and embeddings in request.embeddings',
    { field, rule: 'no_extra_network_syntax', found });
}

/** An uploaded model file longer than the operator allows. */
export function fileTooLarge(maxBytes: number): AppError {
  return new AppError('INVALID_REQUEST_BODY', `file: at most ${maxBytes} bytes`, { field: 'file', rule: 'max_bytes', limit: maxBytes });
}

/** A catalogue record was deleted, or written by another request, while this one worked on it. */
export function recordChanged(message: string, field: string): AppError {
  return new AppError('CONFLICT', message, { field });
}

/** The upstream could not be reached, failed, or answered something else than asked. */
export function upstreamFailed(message: string): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', message);
}

/**
 * An operation this server does not run: a video operation (none is served), or an image
 * operation the configured image upstream has no counterpart for. 400: asking again will not help.
 */
export function notServed(operation: string, why: string): AppError {
  return new AppError('INVALID_REQUEST_BODY', `${operation}: ${why}`, { operation, rule: 'operation_not_served' });
}
