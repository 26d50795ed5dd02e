// @ts-check
// A multipart upload that reports its progress (fetch cannot tell how much of a request body
// was sent; XMLHttpRequest can), authenticated and CSRF-protected like every other call.
import { ApiError, NetworkError, session } from './api.js';

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
    xhr.onerror = () => reject(new NetworkError());
    xhr.onload = () => {
      let body;
      // an answer that is not the API's JSON (a proxy's HTML page) is said by its status, never shown raw
      try { body = xhr.responseText ? JSON.parse(xhr.responseText) : {}; } catch { body = { message: `the server answered ${xhr.status}${xhr.statusText ? ` ${xhr.statusText}` : ''} with a page instead of the API's answer` }; }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else {
        if (xhr.status === 401 && session.value) session.value = null; // the session ended
        reject(new ApiError(xhr.status, body));
      }
    };
    xhr.send(form);
  });
}
