import { describe, expect, it } from 'vitest';
import { defaultZoneOptions } from '../../web/src/pages/settings/default-time-zone.js';
import * as settings from '../../web/src/pages/settings/project-settings.js';
import { trackingPatch } from '../../web/src/pages/settings/tracking-settings.js';

describe('renaming a project', () => {
  it('takes 1 to 255 characters once trimmed', () => {
    expect(settings.projectNameProblem('   ')).toBe('Enter a name.');
    expect(settings.projectNameProblem('x'.repeat(256))).toBe('At most 255 characters.');
    expect(settings.projectNameProblem(` ${'x'.repeat(255)} `)).toBeNull();
  });

  it('asks nothing when the name would not change', () => {
    const project = { name: 'Shop', timezone: 'UTC' };
    expect(settings.generalBody(project, { name: ' Shop ', timezone: 'UTC' })).toBeNull();
    expect(settings.generalBody(project, { name: ' Shop EU ', timezone: 'UTC' })).toEqual({ name: 'Shop EU' });
  });
});

describe('the default time zone', () => {
  it('is saved with the name, and only when it changes', () => {
    const project = { name: 'Shop', timezone: 'UTC' };
    expect(settings.generalBody(project, { name: 'Shop', timezone: 'Asia/Tokyo' })).toEqual({ timezone: 'Asia/Tokyo' });
    expect(settings.generalBody(project, { name: 'Shop EU', timezone: 'Europe/Paris' })).toEqual({
      name: 'Shop EU',
      timezone: 'Europe/Paris',
    });
  });

  it('offers UTC first, then the browser’s zones, named without underscores', () => {
    const options = defaultZoneOptions('UTC', ['America/New_York', 'Asia/Tokyo', 'UTC']);
    expect(options).toEqual([
      { value: 'UTC', label: 'UTC' },
      { value: 'America/New_York', label: 'America/New York' },
      { value: 'Asia/Tokyo', label: 'Asia/Tokyo' },
    ]);
  });

  it('keeps a saved zone this browser does not list, right after UTC', () => {
    expect(defaultZoneOptions('Europe/Kyiv', ['Asia/Tokyo']).map((o) => o.value)).toEqual([
      'UTC',
      'Europe/Kyiv',
      'Asia/Tokyo',
    ]);
  });

  it('offers every zone the runtime knows when not given a list', () => {
    expect(defaultZoneOptions('UTC').map((o) => o.value)).toEqual(
      expect.arrayContaining(['UTC', 'Asia/Tokyo', 'Europe/Paris']),
    );
  });
});

describe('disabling and enabling', () => {
  it.each([
    { disabled: false, state: 'Enabled', action: 'Disable project', title: 'Disable Shop?' },
    { disabled: true, state: 'Disabled', action: 'Enable project', title: 'Enable Shop?' },
  ])('when $state, offers "$action", with the body that does it', ({ disabled, ...copy }) => {
    expect(settings.disableCopy({ name: 'Shop', disabled })).toMatchObject({ ...copy, body: { disabled: !disabled } });
  });

  it('warns before disabling that every request with the keys will be refused (403)', () => {
    expect(settings.disableCopy({ name: 'Shop', disabled: false }).confirm).toContain('403');
  });
});

describe('who may change what', () => {
  it('renaming and tracking take an admin; the keys and the project’s state, an owner', () => {
    expect(settings.settingsAllowed({ role: 'owner' })).toEqual({
      rename: true,
      tracking: true,
      keys: true,
      status: true,
    });
    expect(settings.settingsAllowed({ role: 'admin' })).toEqual({
      rename: true,
      tracking: true,
      keys: false,
      status: false,
    });
    expect(settings.settingsAllowed({ role: 'member' })).toEqual({
      rename: false,
      tracking: false,
      keys: false,
      status: false,
    });
  });
});

describe('the tracking card', () => {
  const saved = {
    TRANSACTIONAL: { opens: true, clicks: true },
    MARKETING: { opens: true, clicks: true },
    HEADLESS: { opens: false, clicks: false },
  };

  it('asks only for the flags that changed', () => {
    const draft = { ...saved, MARKETING: { opens: true, clicks: false }, HEADLESS: { opens: true, clicks: false } };
    expect(trackingPatch(saved, draft)).toEqual({ MARKETING: { clicks: false }, HEADLESS: { opens: true } });
  });

  it('asks nothing when nothing changed', () => {
    expect(trackingPatch(saved, structuredClone(saved))).toBeNull();
  });
});
