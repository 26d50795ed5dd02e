// Checking Kubernetes objects as an API server would: the kubernetes-models schemas do not
// refuse unknown fields, so each object is also walked against @kubernetes/client-node's model
// of its type. Shared by the driver's manifests test and the deploy manifests' test.
import * as k8s from '@kubernetes/client-node';

interface AjvError { instancePath: string; keyword: string; params: unknown }
/** A compiled schema of kubernetes-models (ajv): true when valid, errors set when not. */
export type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

interface Attr { name: string; baseName: string; type: string }
const models = k8s as unknown as Record<string, { getAttributeTypeMap?: () => Attr[] } | undefined>;
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every key of `value` that the client's model `type` (and, below it, each field's type) does
 * not have. Wrong types are left to the schema: this only looks where the shape is right.
 */
export function unknownFields(value: unknown, type: string, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  const list = /^Array<(.+)>$/.exec(type);
  if (list) {
    if (Array.isArray(value)) for (const [i, v] of value.entries()) unknownFields(v, list[1]!, `${path}[${i}]`, out);
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (isObject(value)) for (const [k, v] of Object.entries(value)) unknownFields(v, map[1]!, `${path}[${JSON.stringify(k)}]`, out);
    return;
  }
  const attrs = models[type]?.getAttributeTypeMap?.();
  if (!attrs || !isObject(value)) return; // a string, number, boolean, Date, IntOrString: the schema's to judge
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const a = attrs.find((x) => x.baseName === key);
    if (!a) out.push(`${at}: unknown field (${type} has no ${key})`);
    // the client reads `name` and sends `baseName`: a field whose two differ is never sent as written
    else if (a.name !== key) out.push(`${at}: the client sends it only from its property ${a.name}`);
    else unknownFields(v, a.type, at, out);
  }
}

