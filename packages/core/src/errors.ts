/**
 * Typed errors. Handlers and packages throw these; one mapper (`http/error-mapper.ts`)
 * turns them into `{"error": message, "code": code}` responses. A code names the domain
 * fact a client or test can branch on; the generic ones (`bad_request`, `conflict`, ...)
 * are for failures no client would handle differently. This catalogue is the only place
 * codes are defined, each with the status it is sent with.
 */
export const ERROR_CODES = {
  bad_request: 400,
  invalid_path: 400,
  invalid_settings: 400,
  malformed_json: 400,
  upload_incomplete: 400,
  unauthorized: 401,
  /** A write with anything but a publish session token (SPEC "Access rules on format routes"). */
  needs_publish_session: 401,
  /**
   * A publish session used for another repository than the one it was opened for: a credential that
   * route does not accept (SPEC "Credentials"), so 401 like a missing session.
   */
  wrong_repository: 401,
  forbidden: 403,
  /** A read token used for a write. */
  read_only_token: 403,
  /** A setup-only session outside second-factor setup. */
  second_factor_required: 403,
  not_found: 404,
  /** A path the format serves, with a method it has no route for (the answer's Allow lists those it has). */
  method_not_allowed: 405,
  conflict: 409,
  /** A release (non-SNAPSHOT Maven file, a Debian package identity) cannot change. */
  release_immutable: 409,
  /** A file exists with other content and the repository does not allow overwrites. */
  asset_exists: 409,
  /** A mirror owns the repository; publishing is refused until cut-over. */
  repo_mirrored: 409,
  /** An uploaded checksum disagrees with the file it describes. */
  checksum_mismatch: 409,
  payload_too_large: 413,
  /** A request body in a content coding Trove does not undo (gzip, br, ...). */
  unsupported_encoding: 415,
  /** The disk holding the spool or the blobs is full. */
  insufficient_storage: 507,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal: 500,
  /** A request body in a transfer coding other than chunked. */
  not_implemented: 501,
  bad_gateway: 502,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;

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

/** A TroveError whose status comes from the catalogue. */
export const troveError = (code: ErrorCode, message: string, body?: Record<string, unknown>, headers?: Record<string, string>) =>
  new TroveError(ERROR_CODES[code], code, message, body, headers);

export const forbidden = (message = 'forbidden', code: Extract<ErrorCode, 'forbidden' | 'read_only_token' | 'second_factor_required'> = 'forbidden') =>
  new TroveError(403, code, message);

export const notFound = (message = 'not found') => new TroveError(404, 'not_found', message);

export const conflict = (message: string, code: Extract<ErrorCode, 'conflict' | 'release_immutable' | 'asset_exists' | 'repo_mirrored' | 'checksum_mismatch'> = 'conflict') =>
  new TroveError(409, code, message);

export const payloadTooLarge = (limit: number) =>
  new TroveError(413, 'payload_too_large', `body exceeds the limit of ${limit} bytes`);

export const rateLimited = (retryAfterSeconds: number) =>
  new TroveError(429, 'rate_limited', 'too many attempts, try again later', {}, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

export const badGateway = (message: string) => new TroveError(502, 'bad_gateway', message);

export const unavailable = (message: string) => new TroveError(503, 'unavailable', message);

export const isTroveError = (e: unknown): e is TroveError => e instanceof TroveError;
