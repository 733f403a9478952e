/** An HTTP answer with its body parsed as JSON when it is JSON (the text otherwise, null when empty). */
export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export interface JsonRequest {
  method?: string;
  /** Sent as JSON; a request with a body is a POST unless `method` says otherwise. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** One JSON API call as a client makes it; both test harnesses send their requests through here. */
export async function jsonCall(url: string, opts: JsonRequest = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(url, {
    method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  const text = await r.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: r.status, body, headers: r.headers };
}
