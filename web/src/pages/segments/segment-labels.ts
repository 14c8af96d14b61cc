import type { SegmentType } from '../../../../src/api.js';

/** What the pages call each type of segment (kept apart so the list page loads no filter code). */
export const TYPE_LABELS: Record<SegmentType, string> = { DYNAMIC: 'Dynamic', STATIC: 'Static' };
