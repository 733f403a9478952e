/**
 * Typed errors. Handlers and packages throw these; one mapper
 * (`http/error-mapper.ts`) turns them into `{"error": ...}` responses.
 * A stable `code` lets tests and clients tell failures apart without parsing messages.
 */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_settings'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'bad_gateway'
  | 'unavailable'
  | 'internal';

export class TroveError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra top-level fields of the JSON body, e.g. `fields` for settings validation. */
    readonly body: Record<string, unknown> = {},
    /** Extra response headers, e.g. `WWW-Authenticate` or `Retry-After`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'TroveError';
  }
}

export const BASIC_REALM = 'Basic realm="Trove", charset="UTF-8"';

export const badRequest = (message: string, body?: Record<string, unknown>) =>
  new TroveError(400, 'bad_request', message, body);

export const invalidSettings = (message: string, fields: Record<string, string>) =>
  new TroveError(400, 'invalid_settings', message, { fields });

/** 401. `challenge` adds a Basic challenge, which Maven, Gradle and apt need before they send credentials. */
export const unauthorized = (message = 'authentication required', challenge = true) =>
  new TroveError(401, 'unauthorized', message, {}, challenge ? { 'WWW-Authenticate': BASIC_REALM } : {});

export const forbidden = (message = 'forbidden') => new TroveError(403, 'forbidden', message);

export const notFound = (message = 'not found') => new TroveError(404, 'not_found', message);

export const conflict = (message: string) => new TroveError(409, 'conflict', message);

export const payloadTooLarge = (limit: number) =>
  new TroveError(413, 'payload_too_large', `body exceeds the limit of ${limit} bytes`);

export const rateLimited = (retryAfterSeconds: number) =>
  new TroveError(429, 'rate_limited', 'too many attempts, try again later', {}, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

export const badGateway = (message: string) => new TroveError(502, 'bad_gateway', message);

export const unavailable = (message: string) => new TroveError(503, 'unavailable', message);

export const isTroveError = (e: unknown): e is TroveError => e instanceof TroveError;
