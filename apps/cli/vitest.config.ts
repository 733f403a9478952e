import { mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// These tests start the built server and run real clients (mvn, gradle, npm) as processes:
// minutes, not seconds, on a loaded machine.
export default mergeConfig(shared, { test: { testTimeout: 300_000, hookTimeout: 300_000 } });
