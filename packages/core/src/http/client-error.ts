import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests Node's HTTP parser refuses before any route runs (a backslash or a control
 * character in the path, a malformed header) still get a JSON `{"error"}` body, like
 * every other 4xx, instead of Node's bare `400 Bad Request`.
 */
export function jsonClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    // Bytes after a request whose body is complete and whose answer is still being made (a body
    // longer than its Content-Length): that answer (say a 201 for a stored upload) must reach the
    // client, not a 400 in its place. Let it finish, then close. (A request whose own body broke
    // is not complete: it ends below, and its handler sees the aborted body.)
    const pending = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (pending && !pending.writableFinished && pending.req?.complete) {
      pending.shouldKeepAlive = false;
      pending.once('finish', () => socket.end());
      pending.once('close', () => socket.destroy());
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const body = JSON.stringify({ error: tooLarge ? 'request headers too large' : timedOut ? 'request timed out' : 'malformed HTTP request' });
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
