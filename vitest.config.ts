import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Each worker imports the service once for all its files, instead of once per file (a tenth of
    // the suite's time). Files share no state through modules: each starts servers and databases
    // of its own.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for what the page or the service does next: a cold page in a fresh browser
    // context takes over a second on a busy machine, vitest's default limit.
    expect: { poll: { timeout: 10_000 } },
  },
});
