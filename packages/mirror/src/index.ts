// The Nexus mirror (import, sync, cut-over) lands in a later issue; its settings group is
// registered now so `mirror.sync_interval` is part of the settings reference from the start.
export { mirrorSettings } from './settings.js';
