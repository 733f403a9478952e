// The public surface of @trove/core: what this file exports, plus the test helpers under
// `@trove/core/testing/*` named in package.json `exports`. Nothing else is importable.
export * from './errors.js';
export type { CoreContext } from './context.js';
export { createCore, type Core, type CreateCoreOptions } from './create-core.js';
export {
  defineFormat,
  type FormatContext,
  type FormatDefinition,
  type FormatInstance,
  type OpenedRequest,
  type UsageInput,
  type UsageSnippet,
} from './modules/format.js';
export { defineModule, type AnyModule, type CredentialProvider, type ModuleContext, type ModuleDefinition, type ModuleInstance } from './modules/contract.js';
export { FormatRegistry, type FormatDescriptor } from './modules/registry.js';
export { startModules, formatContext, type RunningModule, type RunningModules } from './modules/lifecycle.js';
export { coreModule } from './modules/core-module.js';
export type { Credential, CredentialRequest, CredentialResolver, PublishGrant } from './access/credential.js';
export { ANONYMOUS } from './access/credential.js';
export { denyAllResolver } from './access/deny-all.js';
export { RepoAccess } from './access/repo-access.js';
export { CredentialCache, CREDENTIAL_CACHE_MS, type Lookup, type RememberOptions } from './access/credential-cache.js';
export { Generations, GenerationCache, type GenerationName, type GenerationValues } from './cache/generations.js';
export { AuditLog, auditJson, type AuditEntry, type AuditFilter } from './audit/service.js';
export { importAsset, importCommitInput, removeImported, type ImportInput, type ImportResult } from './assets/import.js';
export { AssetService, assetJson, type CommitInput, type CommitStatus, type OnExisting } from './assets/service.js';
export { RepoService, repoJson, REPO_NAME, type FormatConfigLookup } from './repos/service.js';
export { PermissionService } from './repos/permissions.js';
export { UserService, userJson, USERNAME } from './users/service.js';
export { JobRunner, type JobHandler, type JobRecord, type JobRun, type JobState } from './jobs/index.js';
export { openDatabase, applyMigrations, coreMigrations, type MigrationSet, type TroveDb } from './db/open.js';
export * as schema from './db/schema.js';
export type { AssetRow, AuditRow, JobRow, RepoRow, UserRow, PermissionLevel } from './db/schema.js';
export { SettingsRegistry, type PatchHook, type PendingChange } from './settings/registry.js';
export { SecretBox } from './settings/secret-box.js';
export { parseDuration } from './settings/duration.js';
export { defineSettings, envName, type SettingDef, type SettingsGroup, type SettingValue, type SettingItem } from './settings/types.js';
export { readBootConfig, parseListen, BootError, BOOT_VARIABLES, type BootConfig } from './boot.js';
export { lockDataDir, type DataDirLock } from './data-dir-lock.js';
export type { TroveEnv } from './http/env.js';
export { errorHandler, notFoundHandler, toTroveError } from './http/error-mapper.js';
export { clientIp, proxyMatcher } from './http/client-ip.js';
export { credentials } from './http/credentials.js';
export { csrfGuard } from './http/csrf.js';
export { requireUser, requireAdmin, requireWriterUser, apiCredentialRules, type CredentialPaths } from './http/guards.js';
export { readBody, readJson, readJsonObject } from './http/json-body.js';
export { pageLimit, encodeCursor, decodeCursor, page, isString, listQuery, pageInMemory, DEFAULT_LIMIT, MAX_LIMIT } from './http/paging.js';
export { serveAsset, serveBytes, parseRange, notModified, redirectOption, type Representation, type ServeOptions } from './http/serve-blob.js';
export { nextModified } from './http/last-modified.js';
export { receiveUpload } from './http/upload.js';
export { mountFormat } from './http/mount.js';
export { openFormatRequest, receiveFormatUpload } from './http/format-request.js';
export { settingsRoutes } from './api/settings-routes.js';
export { repoRoutes, effectiveBaseUrl } from './api/repo-routes.js';
export { buildHttpApp, type HttpAppParts } from './http/app.js';
export { parseRepoPath, isUnsafeSegment } from './http/repo-path.js';
export { jsonClientErrors } from './http/client-error.js';
export { listen } from './http/listen.js';
export { AnswerCache, recordAnswer, type AnswerCacheOptions } from './http/answer-cache.js';
export { isActiveContentType, inertContentType, contentHeaders } from './http/active-content.js';
export { FORMAT_SECURITY_HEADERS } from './http/format-headers.js';
export { createStorage, MOVE_KIND, GC_KIND, moveJson, type Storage } from './storage/index.js';
