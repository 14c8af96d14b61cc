import { describe, expect, it } from 'vitest';
import { parseSampleData, transientData } from '../../web/src/pages/templates/sample-data.js';
import * as form from '../../web/src/pages/templates/template-form.js';

describe('sample data for the preview', () => {
  it('is a JSON object; empty means no data', () => {
    expect(parseSampleData('{"firstName": "Ada", "plan": {"name": "pro"}}')).toEqual({
      ok: true,
      data: { firstName: 'Ada', plan: { name: 'pro' } },
    });
    expect(parseSampleData('  \n')).toEqual({ ok: true, data: {} });
  });

  it('explains invalid JSON with the line and column people count', () => {
    const result = parseSampleData('{\n  "firstName": "Ada",\n}');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(/^Not valid JSON/);
    expect(result.message).toContain('line 3');
  });

  it('refuses what is not an object', () => {
    for (const text of ['[1, 2]', '42', '"Ada"', 'null']) {
      const result = parseSampleData(text);
      expect(result.ok, text).toBe(false);
      if (!result.ok) expect(result.message).toContain('JSON object');
    }
  });

  it('goes with a test send for that send only', () => {
    expect(transientData({ firstName: 'Ada', n: 1 })).toEqual({
      firstName: { value: 'Ada', persistent: false },
      n: { value: 1, persistent: false },
    });
  });
});

describe('the template form', () => {
  it('sends empty optional fields as null and trims addresses', () => {
    const payload = form.templatePayload({
      ...form.EMPTY_FORM,
      name: ' Welcome ',
      from: ' a@example.com ',
      fromName: '  ',
    });
    expect(payload).toMatchObject({ name: 'Welcome', from: 'a@example.com', fromName: null, replyTo: null });
    expect(payload.description).toBeNull();
  });

  it('knows when something changed', () => {
    expect(form.isDirty(form.EMPTY_FORM, { ...form.EMPTY_FORM })).toBe(false);
    expect(form.isDirty({ ...form.EMPTY_FORM, body: 'x' }, form.EMPTY_FORM)).toBe(true);
  });

  it('compares block documents by content: the server gives their keys back in another order', () => {
    const saved = { ...form.EMPTY_FORM, bodySource: { editor: 'react-email', document: { type: 'doc', content: [] } } };
    const reordered = { ...saved, bodySource: { document: { content: [], type: 'doc' }, editor: 'react-email' } };
    expect(form.isDirty(reordered, saved)).toBe(false);
    expect(form.isDirty({ ...saved, bodySource: { ...saved.bodySource, editor: 'other' } }, saved)).toBe(true);
    expect(form.isDirty({ ...saved, bodySource: null }, saved)).toBe(true);
    expect(form.templatePayload(saved).bodySource).toEqual(saved.bodySource);
  });
});

describe('render errors', () => {
  it('point at their line', () => {
    expect(form.errorLine('tag "if" not closed, line:2, col:4')).toBe(2);
    expect(form.errorLine('unexpected token at line 12')).toBe(12);
    expect(form.errorLine('something else')).toBeNull();
  });

  it('are sorted by part, the first of each kept', () => {
    expect(
      form.renderErrors([
        { field: 'body', message: 'a', code: 'invalid_template' },
        { field: 'body', message: 'b', code: 'invalid_template' },
        { field: 'subject', message: 'c', code: 'invalid_template' },
        { field: 'type', message: 'd', code: 'invalid_enum_value' },
      ]),
    ).toEqual({ body: 'a', subject: 'c' });
  });
});

describe('words for what the page shows', () => {
  it('says what uses a template', () => {
    expect(form.usageSentence({ campaigns: [], workflows: [] })).toBe('Not used by any campaign or workflow.');
    expect(form.usageSentence({ campaigns: [{ id: '1', name: 'Spring' }], workflows: [] })).toBe(
      'Used by 1 campaign (“Spring”).',
    );
    const many = ['A', 'B', 'C', 'D', 'E'].map((name) => ({ id: name, name }));
    expect(form.usageSentence({ campaigns: many, workflows: [{ id: 'w', name: 'Onboarding' }] })).toBe(
      'Used by 5 campaigns (“A”, “B”, “C” and 2 more) and 1 workflow step (“Onboarding”).',
    );
  });

  it('says where a test email went: the local outbox without a relay, or the relay', () => {
    const base = { to: 'me@example.com', lastError: null };
    expect(form.deliveryWords({ ...base, status: 'queued', smtpResponse: null }).done).toBe(false);
    const captured = form.deliveryWords({ ...base, status: 'sent', smtpResponse: 'written to /data/outbox/x.eml' });
    expect(captured).toMatchObject({ done: true, tone: 'ok' });
    expect(captured.text).toContain('Captured locally');
    expect(captured.text).toContain('/data/outbox/x.eml');
    expect(form.deliveryWords({ ...base, status: 'sent', smtpResponse: '250 2.0.0 OK' }).text).toContain(
      '250 2.0.0 OK',
    );
    expect(
      form.deliveryWords({ ...base, status: 'failed', smtpResponse: null, lastError: '550 no such user' }),
    ).toMatchObject({ tone: 'problem', text: 'Not sent to me@example.com: 550 no such user.' });
  });

  it('offers the contact fields as template variables', () => {
    const names = form.dataFieldNames([
      { field: 'email', isCustom: false, type: 'string' },
      { field: 'data.firstName', isCustom: true, type: 'string' },
      { field: 'data.favourite colour', isCustom: true, type: 'string' },
    ]);
    expect(names).toEqual([
      { key: 'firstName', type: 'string', identifier: true },
      { key: 'favourite colour', type: 'string', identifier: false },
    ]);
  });
});

describe('tracking choices', () => {
  it("are the project's setting (null), on or off, both ways", () => {
    for (const v of [null, true, false]) expect(form.trackValueOf(form.trackChoiceOf(v))).toBe(v);
    expect(form.trackChoiceOf(null)).toBe('default');
  });
});
