/** Inline icons (no icon font, no emoji: both depend on fonts the machine may lack). */
export function FolderIcon() {
  return (
    <svg className="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <path fill="#e9b949" d="M1.5 3A1.5 1.5 0 0 1 3 1.5h3.3l1.6 1.6H13A1.5 1.5 0 0 1 14.5 4.6v7.9A1.5 1.5 0 0 1 13 14H3a1.5 1.5 0 0 1-1.5-1.5V3Z" />
    </svg>
  );
}

export function FileIcon() {
  return (
    <svg className="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <path fill="#fff" stroke="#8a94a6" d="M3.5 1.5h6l3 3v10h-9z" />
      <path fill="none" stroke="#8a94a6" d="M9.5 1.5v3h3" />
    </svg>
  );
}
