import { describe, expect, it } from 'vitest';
import { cliCommands, sessionCommands } from './session-commands';

describe('sessionCommands', () => {
  it('puts the token and the repository URL of its format into every command', () => {
    for (const format of ['maven', 'debian', 'raw']) {
      const cmds = sessionCommands('https://trove.example', format, 'rel', 'trs_a_b');
      expect(cmds.length).toBeGreaterThan(0);
      for (const c of cmds) expect(c.code.includes('trs_a_b') || c.code.includes(`https://trove.example/${format}/rel`)).toBe(true);
      expect(cmds.some((c) => c.code.includes('trs_a_b') && c.code.includes(`https://trove.example/${format}/rel`))).toBe(true);
    }
  });

  it('offers Maven and Gradle for Maven repositories and apt for Debian ones', () => {
    expect(sessionCommands('http://h', 'maven', 'r', 't').map((c) => c.title.split(':')[0])).toEqual(['Maven', 'Maven', 'Gradle', 'curl']);
    expect(sessionCommands('http://h', 'debian', 'r', 't').some((c) => c.code.includes('apt-get update'))).toBe(true);
  });

  it('installs the CLI from this server and logs in to it', () => {
    const all = cliCommands('https://trove.example').map((c) => c.code).join('\n');
    expect(all).toContain('npm install -g https://trove.example/downloads/trove-cli.tgz');
    expect(all).toContain('trove login https://trove.example');
  });
});
