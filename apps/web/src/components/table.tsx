import type { ReactNode } from 'react';

/**
 * A horizontally scrolling table: one header cell per named column (a falsy entry is left
 * out), plus an unlabelled last column for row buttons when `actions` is set. `children`
 * are the body rows.
 */
export function Table({ columns, actions, children }: { columns: (string | false | null | undefined)[]; actions?: boolean; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((c) => c && <th key={c} scope="col">{c}</th>)}
            {actions && (
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
