import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './net.mjs';
import { memoryOf, stopChild, track } from './proc.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

function handle(child, url, extra = {}) {
  return {
    url,
    pid: child.pid,
    memory: () => memoryOf(child.pid),
    stop: () => stopChild(child),
    ...extra,
  };
}

/** The plain node:http reference (node-ref-server.mjs) serving and receiving under `root`, pinned to `cpu`. */
export async function startNodeReference(root, { cpu = '0' } = {}) {
  const port = await freePort();
  const child = track(spawn('taskset', ['-c', cpu, process.execPath, join(HERE, 'node-ref-server.mjs'), root, String(port)], { stdio: 'ignore' }));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, { body: 'ok' });
  return handle(child, url);
}

/** The bare node:http server answering the same bytes from memory (memory-ref-server.mjs): the platform's ceiling for a small GET. */
export async function startMemoryReference(root, { cpu = '0' } = {}) {
  const port = await freePort();
  const child = track(spawn('taskset', ['-c', cpu, process.execPath, join(HERE, 'memory-ref-server.mjs'), root, String(port)], { stdio: 'ignore' }));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, { body: 'ok' });
  return handle(child, url);
}

/**
 * nginx as the physical reference: one worker, sendfile on, keep-alive, no access
 * log, everything (config, pid, temp paths, error log) in its own temp dir.
 * The master runs with `master_process off` so the pid we pin and measure is the worker.
 */
export async function startNginx(root, { cpu = '0' } = {}) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'trove-bench-nginx-'));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 65;
  keepalive_requests 1000000;
  default_type application/octet-stream;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location = /healthz { return 200 "ok"; }
  }
}
`,
  );
  const child = track(spawn('taskset', ['-c', cpu, 'nginx', '-p', dir, '-c', conf], { stdio: 'ignore' }));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/healthz`, { body: 'ok' });
  } catch (err) {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return handle(child, url, {
    async stop() {
      // With master_process off, SIGQUIT is nginx's graceful stop.
      await new Promise((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGQUIT');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
