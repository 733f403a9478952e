import { link } from '../../router';

/** The console's sections, in the order an operator visits them after the first day. */
export const ADMIN_SECTIONS: { path: string; label: string }[] = [
  { path: 'system', label: 'System' },
  { path: 'settings', label: 'Settings' },
  { path: 'signing-key', label: 'Signing key' },
  { path: 'trusts', label: 'CI trust' },
  { path: 'mirror', label: 'Mirror' },
  { path: 'audit', label: 'Audit log' },
  { path: 'publish-log', label: 'Publish log' },
];

/** Tabs between the console's sections; a wrapping list of links, so it never widens a phone's page. */
export function AdminNav({ current }: { current: string }) {
  return (
    <nav aria-label="Administration" className="admin-nav">
      {ADMIN_SECTIONS.map((s) => (
        <a key={s.path} href={link('admin', s.path)} aria-current={s.path === current ? 'page' : undefined}>
          {s.label}
        </a>
      ))}
    </nav>
  );
}
