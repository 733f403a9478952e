import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { walDurability, type CommitDurability } from './commit-durability.js';
import * as schema from './schema.js';

export type TroveDb = BetterSQLite3Database<typeof schema>;

/** A package's migrations: a drizzle-kit output folder, tracked in its own table so packages migrate independently. */
export interface MigrationSet {
  name: string;
  folder: string;
}

export const coreMigrations: MigrationSet = {
  name: 'core',
  folder: fileURLToPath(new URL('../../drizzle', import.meta.url)),
};

export interface OpenedDatabase {
  sqlite: Database.Database;
  db: TroveDb;
  /** Waits until what this connection committed survives a power cut (see `commit-durability.ts`). */
  durability: CommitDurability;
}

/**
 * Opens (or creates) the SQLite file. WAL lets readers run while a writer commits;
 * `synchronous = NORMAL` is durable across process crashes in WAL mode (only an OS crash
 * can lose the last transactions, never corrupt the file); what a client is told is written
 * waits for `durability` instead, off the event loop. The busy timeout covers the short write
 * locks taken by background jobs.
 */
export function openDatabase(file: string): OpenedDatabase {
  ownerOnly(file);
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  const durability = walDurability(file === ':memory:' ? null : `${file}-wal`, () => totalChanges.get() as number);
  return { sqlite, db: drizzle(sqlite, { schema }), durability };
}

/**
 * The database file is created 0600 before SQLite opens it (SQLite gives its -wal and -shm
 * files the database file's mode), and an existing one (and its side files) is tightened:
 * password hashes and sealed secrets are not for other local users.
 */
function ownerOnly(file: string): void {
  if (file === ':memory:') return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f)) chmodSync(f, 0o600);
  }
}

/** Applies each set in order (core first: other packages reference its tables). */
export function applyMigrations(db: BetterSQLite3Database<any>, sets: MigrationSet[]): void {
  for (const set of sets) {
    migrate(db, { migrationsFolder: set.folder, migrationsTable: `__migrations_${set.name.replace(/[^a-z0-9]/gi, '_')}` });
  }
}
