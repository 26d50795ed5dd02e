// A multipart/form-data body for app.inject(), encoded by the platform's FormData as a
// browser or the OpenAI SDK would send it. Parts keep the order given.
export type FormPart = [name: string, value: string | { filename: string; content: string | Buffer }];

export async function multipart(parts: FormPart[]): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const fd = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === 'string') fd.append(name, value);
    else fd.append(name, new Blob([typeof value.content === 'string' ? value.content : new Uint8Array(value.content)]), value.filename); // a copy: a part of Node's Blob and of the DOM's alike
  }
  const req = new Request('http://local/', { method: 'POST', body: fd });
  return { payload: Buffer.from(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}
