import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACKING, parseTrackHeader, resolveTracking } from '../../src/domain/tracking.js';

describe('resolveTracking', () => {
  it('tracks marketing and transactional mail and leaves headless mail alone by default', () => {
    expect(resolveTracking('TRANSACTIONAL', DEFAULT_TRACKING)).toEqual({ opens: true, clicks: true });
    expect(resolveTracking('MARKETING', DEFAULT_TRACKING)).toEqual({ opens: true, clicks: true });
    expect(resolveTracking('HEADLESS', DEFAULT_TRACKING)).toEqual({ opens: false, clicks: false });
  });

  it("follows the project's choice for the email's type only", () => {
    const project = { ...DEFAULT_TRACKING, MARKETING: { opens: true, clicks: false } };
    expect(resolveTracking('MARKETING', project)).toEqual({ opens: true, clicks: false });
    expect(resolveTracking('TRANSACTIONAL', project)).toEqual({ opens: true, clicks: true });
  });

  it('takes each flag from the most specific choice that gives it', () => {
    const send = { opens: false };
    const template = { opens: true, clicks: false };
    expect(resolveTracking('TRANSACTIONAL', DEFAULT_TRACKING, send, template)).toEqual({ opens: false, clicks: false });
  });

  it('passes over null and absent flags and missing choices', () => {
    const template = { opens: null, clicks: false };
    expect(resolveTracking('MARKETING', DEFAULT_TRACKING, undefined, null, template)).toEqual({
      opens: true,
      clicks: false,
    });
  });

  it('tracks headless mail when a choice asks for it', () => {
    expect(resolveTracking('HEADLESS', DEFAULT_TRACKING, { opens: true })).toEqual({ opens: true, clicks: false });
  });
});

describe('parseTrackHeader', () => {
  it('reads none, one flag or both, in any case and order', () => {
    expect(parseTrackHeader('none')).toEqual({ opens: false, clicks: false });
    expect(parseTrackHeader('Opens')).toEqual({ opens: true, clicks: false });
    expect(parseTrackHeader(' clicks , opens ')).toEqual({ opens: true, clicks: true });
  });

  it('refuses anything else', () => {
    expect(parseTrackHeader('')).toBeNull();
    expect(parseTrackHeader('yes')).toBeNull();
    expect(parseTrackHeader('none, opens')).toBeNull();
  });
});
