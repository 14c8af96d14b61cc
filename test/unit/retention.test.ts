import { describe, expect, it } from 'vitest';
import { retentionPlan } from '../../src/domain/retention.js';

const now = new Date('2026-06-15T00:00:00Z');
const daysBefore = (d: number) => new Date(now.getTime() - d * 86_400_000);

describe('retentionPlan', () => {
  it('keeps everything when no project and no default has a retention', () => {
    expect(retentionPlan([{ id: 'a', days: null }], undefined, now)).toEqual({ deletes: [] });
  });

  it('drops before the longest retention when every project has one, and deletes per project', () => {
    expect(
      retentionPlan(
        [
          { id: 'a', days: 30 },
          { id: 'b', days: null },
        ],
        90,
        now,
      ),
    ).toEqual({
      dropBefore: daysBefore(90),
      deletes: [
        { projectId: 'a', before: daysBefore(30) },
        { projectId: 'b', before: daysBefore(90) },
      ],
    });
  });

  it('drops nothing while one project keeps its events for ever', () => {
    expect(
      retentionPlan(
        [
          { id: 'a', days: 30 },
          { id: 'b', days: null },
        ],
        undefined,
        now,
      ),
    ).toEqual({ deletes: [{ projectId: 'a', before: daysBefore(30) }] });
  });

  it('drops nothing without projects', () => {
    expect(retentionPlan([], 30, now)).toEqual({ deletes: [] });
  });
});
