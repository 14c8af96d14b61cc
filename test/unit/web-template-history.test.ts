import { describe, expect, it } from 'vitest';
import { bodyDiff, subjectDiff, versionSentence } from '../../web/src/pages/templates/version-diff.js';

describe('the template history words and diffs', () => {
  it('marks the subject words removed and added, in order', () => {
    expect(subjectDiff('Hello there', 'Hello again')).toEqual([
      { kind: 'same', text: 'Hello ' },
      { kind: 'removed', text: 'there' },
      { kind: 'added', text: 'again' },
    ]);
  });

  it('keeps two unchanged lines around a changed one and folds the rest', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n');
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h'].join('\n');
    expect(bodyDiff(before, after)).toEqual([
      { kind: 'fold', count: 2 },
      { kind: 'same', text: 'c' },
      { kind: 'same', text: 'd' },
      { kind: 'removed', text: 'e' },
      { kind: 'added', text: 'E' },
      { kind: 'same', text: 'f' },
      { kind: 'same', text: 'g' },
      { kind: 'fold', count: 1 },
    ]);
    expect(bodyDiff('same\nbody', 'same\nbody')).toEqual([]);
  });

  it('says what a version did', () => {
    expect(versionSentence({ event: 'created', restoredFrom: null, changed: [] })).toBe('Created');
    expect(versionSentence({ event: 'edited', restoredFrom: null, changed: ['subject'] })).toBe('Changed subject');
    expect(
      versionSentence({ event: 'edited', restoredFrom: null, changed: ['subject', 'body', 'bodySource', 'from'] }),
    ).toBe('Changed subject, body and from');
    expect(versionSentence({ event: 'restored', restoredFrom: 2, changed: ['body'] })).toBe('Restored version 2: body');
  });
});
