import type { PermissionLevel, RepoRow } from '../db/schema.js';
import { conflict, forbidden, notFound, TroveError, BASIC_REALM } from '../errors.js';
import type { PermissionService } from '../repos/permissions.js';
import type { RepoService } from '../repos/service.js';
import type { Credential, PublishGrant } from './credential.js';

/**
 * The access rules for repositories (SPEC: "Access rules on format routes"), in one place
 * so every format and API route applies them identically.
 */
export class RepoAccess {
  constructor(
    private readonly repos: RepoService,
    private readonly perms: PermissionService,
    /** `base_url` for the "publishing needs a publish session" message. */
    private readonly baseUrl: () => string,
  ) {}

  /** The user's own level, ignoring anonymous_read: admins hold write everywhere. */
  userLevel(cred: Credential, repo: RepoRow): PermissionLevel | null {
    if (cred.type !== 'user') return null;
    if (cred.user.isAdmin) return 'write';
    return this.perms.level(cred.user.id, repo.id);
  }

  canRead(cred: Credential, repo: RepoRow): boolean {
    if (cred.type === 'publish') return cred.grant.repo === repo.name && this.grantUserMayRead(cred.grant, repo);
    if (repo.anonymousRead) return true;
    return this.userLevel(cred, repo) !== null;
  }

  /** A device or manual session reads only while its user still holds read (or the repo is public); CI sessions have no user. */
  private grantUserMayRead(grant: PublishGrant, repo: RepoRow): boolean {
    if (grant.proof === 'oidc' || repo.anonymousRead) return true;
    const user = grant.user;
    return !!user && !user.disabled && (user.isAdmin || this.perms.level(user.id, repo.id) !== null);
  }

  /** Names do not leak: an anonymous caller gets the same 401 for unknown and private repositories. */
  private lookup(cred: Credential, name: string, format?: string): RepoRow {
    const repo = this.repos.byName(name);
    if (!repo || (format && repo.format !== format)) {
      if (cred.type === 'anonymous') throw challenge('authentication required');
      throw notFound(`repository ${name} not found`);
    }
    return repo;
  }

  requireRead(cred: Credential, name: string, format?: string): RepoRow {
    const repo = this.lookup(cred, name, format);
    if (this.canRead(cred, repo)) return repo;
    if (cred.type === 'anonymous') throw challenge('authentication required');
    if (cred.type === 'publish' && cred.grant.repo === repo.name) throw forbidden(`user ${cred.grant.actor} no longer holds read permission on ${name}`);
    // SPEC "Credentials": a publish token is accepted on the routes of its one repo; elsewhere it is a bad credential.
    if (cred.type === 'publish') throw challenge(`this publish session is valid for repository ${cred.grant.repo} only`, 'wrong_repository');
    throw forbidden(`no read permission on repository ${name}`);
  }

  /**
   * Writes need an open publish session for exactly this repository; device and manual
   * sessions also need their user to still hold `write` (checked on every write).
   */
  requireWrite(cred: Credential, name: string, format?: string, requestOrigin = ''): RepoRow {
    const repo = this.lookup(cred, name, format);
    // SPEC access rule 5, for a session of another repository too: it is no open session for this one.
    const needsSession = (code: 'needs_publish_session' | 'wrong_repository') =>
      challenge(`publishing needs a publish session: ${this.baseUrl() || requestOrigin}/#/publishing`, code);
    if (cred.type !== 'publish') throw needsSession('needs_publish_session');
    const { grant } = cred;
    if (grant.repo !== repo.name) throw needsSession('wrong_repository');
    if (grant.proof !== 'oidc') {
      const user = grant.user;
      const level = user && !user.disabled ? (user.isAdmin ? 'write' : this.perms.level(user.id, repo.id)) : null;
      if (level !== 'write') throw forbidden(`user ${grant.actor} no longer holds write permission on ${repo.name}`);
    }
    if (repo.lockedBy) throw conflict(`repository ${repo.name} mirrors ${repo.lockedBy}; writes are refused until cut-over`, 'repo_mirrored');
    return repo;
  }
}

const challenge = (message: string, code: 'unauthorized' | 'needs_publish_session' | 'wrong_repository' = 'unauthorized') =>
  new TroveError(401, code, message, {}, { 'WWW-Authenticate': BASIC_REALM });
