import { useState } from 'react';

/** Copies `text`; says so for screen readers and sighted users alike. Falls back to selecting a hidden field. */
export function CopyButton({ text, label, caption = 'Copy' }: { text: string; label: string; caption?: string }) {
  const [done, setDone] = useState<'' | 'ok' | 'fail'>('');
  const copy = async () => {
    try {
      if (navigator.clipboard && isSecureContext) await navigator.clipboard.writeText(text);
      else fallbackCopy(text);
      setDone('ok');
    } catch {
      setDone(fallbackCopy(text) ? 'ok' : 'fail');
    }
    setTimeout(() => setDone(''), 2000);
  };
  return (
    <button type="button" className="copy" onClick={copy} aria-label={`Copy ${label}`}>
      {done === 'ok' ? 'Copied' : done === 'fail' ? 'Select and copy' : caption}
      <span className="sr-only" aria-live="polite">
        {done === 'ok' ? `${label} copied` : ''}
      </span>
    </button>
  );
}

function fallbackCopy(text: string): boolean {
  const t = document.createElement('textarea');
  t.value = text;
  t.setAttribute('readonly', '');
  t.style.position = 'fixed';
  t.style.opacity = '0';
  document.body.append(t);
  t.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  t.remove();
  return ok;
}
