import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for what the page or the service does next: a cold page in a fresh browser
    // context takes over a second on a busy machine, vitest's default limit.
    expect: { poll: { timeout: 10_000 } },
  },
});
