import { CopyButton } from './copy-button';

/** A titled, copyable block of code or commands. */
export function CodeBlock({ title, code, lang }: { title: string; code: string; lang?: string }) {
  return (
    <figure className="snippet">
      <figcaption>
        <span>{title}</span>
        <CopyButton text={code} label={title} />
      </figcaption>
      <pre tabIndex={0} aria-label={title} data-lang={lang}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
