import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Credential } from '../access/credential.js';

/** Hono environment shared by every Trove route: typed variables set by the core middleware. */
export interface TroveEnv {
  Bindings: {
    /** Present under @hono/node-server: the raw Node request and response, for streaming bodies. */
    incoming?: IncomingMessage;
    outgoing?: ServerResponse;
  };
  Variables: {
    credential: Credential;
    /** Client IP after `trusted_proxies`. */
    clientIp: string;
    log: Logger;
  };
}
