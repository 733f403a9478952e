import { CopyButton } from './copy-button';

/** Shell commands wrap (one long line reads better wrapped); code keeps its indentation and scrolls. */
const wraps = (lang?: string) => lang === 'shell' || lang === 'sh' || lang === 'bash';

/** A titled, copyable block of code or commands. */
export function CodeBlock({ title, code, lang }: { title: string; code: string; lang?: string }) {
  return (
    <figure className="snippet">
      <figcaption>
        <span>{title}</span>
        <CopyButton text={code} label={title} />
      </figcaption>
      <CodePre title={title} code={code} lang={lang} />
    </figure>
  );
}

export function CodePre({ title, code, lang }: { title: string; code: string; lang?: string }) {
  return (
    <pre tabIndex={0} aria-label={title} data-lang={lang} className={wraps(lang) ? 'wrap' : undefined}>
      <code>{code}</code>
    </pre>
  );
}
