import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CoreContext, TroveEnv } from '@trove/core';
import { PENDING_LOGIN_MS } from './pending-logins.js';

export const SESSION_COOKIE = 'tr_session';
export const LOGIN_COOKIE = 'tr_login';
/** The pending sign-in cookie is only ever read by the sign-in routes. */
const LOGIN_PATH = '/api/auth';

const secure = (ctx: CoreContext) => ctx.settings.bool('cookie.secure');

/** `tr_session`: HttpOnly, SameSite=Lax, Secure unless `cookie.secure` is false, expiring with the session. */
export function setSessionCookie(ctx: CoreContext, c: Context<TroveEnv>, token: string, expiresAt: Date): void {
  setCookie(c, SESSION_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'Lax', secure: secure(ctx), expires: expiresAt });
}

export function clearSessionCookie(ctx: CoreContext, c: Context<TroveEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'Lax', secure: secure(ctx) });
}

export function setLoginCookie(ctx: CoreContext, c: Context<TroveEnv>, token: string): void {
  setCookie(c, LOGIN_COOKIE, token, { path: LOGIN_PATH, httpOnly: true, sameSite: 'Lax', secure: secure(ctx), maxAge: PENDING_LOGIN_MS / 1000 });
}

export function clearLoginCookie(ctx: CoreContext, c: Context<TroveEnv>): void {
  deleteCookie(c, LOGIN_COOKIE, { path: LOGIN_PATH, httpOnly: true, sameSite: 'Lax', secure: secure(ctx) });
}

export const loginCookie = (c: Context<TroveEnv>) => getCookie(c, LOGIN_COOKIE);
export const sessionCookie = (c: Context<TroveEnv>) => getCookie(c, SESSION_COOKIE);
