// @ts-check
// A multipart upload that reports its progress (fetch cannot tell how much of a request body
// was sent; XMLHttpRequest can), authenticated and CSRF-protected like every other call.
import { ApiError, session } from './api.js';

/**
 * POST `form` to `path`; `onProgress(sent, total)` as the body goes out. Resolves to the parsed answer.
 * @param {string} path
 * @param {FormData} form
 * @param {(sent: number, total: number) => void} onProgress
 * @returns {Promise<import('./api.js').Json>}
 */
export function uploadWithProgress(path, form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('accept', 'application/json');
    if (session.value) xhr.setRequestHeader('x-csrf-token', session.value.csrfToken);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded, e.total); };
    xhr.onerror = () => reject(new ApiError(0, { message: 'the upload could not reach the server' }));
    xhr.onload = () => {
      let body;
      try { body = xhr.responseText ? JSON.parse(xhr.responseText) : {}; } catch { body = { message: xhr.responseText }; }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else {
        if (xhr.status === 401 && session.value) session.value = null; // the session ended
        reject(new ApiError(xhr.status, body));
      }
    };
    xhr.send(form);
  });
}
