import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReportAnswer, parseRuleTable, SpamdError, spamdTarget } from '../../src/domain/spamd-answer.js';

// Answers of Debian's spamd 4.0.1 (`spamd -L`), captured as they came off the socket (CRLF head).
const fixture = (name: string) => fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/spamd', name), 'utf8');

describe('parseReportAnswer', () => {
  it('reads the score, the threshold and each rule of a report, highest points first', () => {
    const report = parseReportAnswer(fixture('report-pixel-only.txt'));
    expect(report.score).toBe(4.9);
    expect(report.threshold).toBe(5);
    expect(report.rules[0]).toEqual({
      name: 'EMPTY_MESSAGE',
      score: 2.2,
      description: 'Message appears to have no textual parts',
    });
    expect(report.rules).toContainEqual({
      name: 'HTML_IMAGE_ONLY_04',
      score: 1.7,
      description: 'BODY: HTML: images with 0-400 bytes of words',
    });
    expect(report.rules.map((r) => r.name)).toHaveLength(10);
    expect(report.rules.map((r) => r.score)).toEqual([...report.rules.map((r) => r.score)].sort((a, b) => b - a));
  });

  it('joins a description that goes on in the next line, and reads negative points', () => {
    const report = parseReportAnswer(fixture('report-spam.txt'));
    expect(report.score).toBe(11.1);
    expect(report.rules).toContainEqual({
      name: 'NORMAL_HTTP_TO_IP',
      score: 0.2,
      description: 'URI: URI host has a public dotted-decimal IPv4 address',
    });
    expect(report.rules.find((r) => r.name === 'NO_RELAYS')?.score).toBe(-0);
    expect(report.rules).toHaveLength(12);
  });

  it('does not take the content preview for rules', () => {
    const answer = fixture('report-spam.txt').replace('Dear friend,', '\n 9.9 FAKE_RULE  from the message\n');
    expect(parseReportAnswer(answer).rules.map((r) => r.name)).not.toContain('FAKE_RULE');
  });

  it('reads a negative score', () => {
    const answer = 'SPAMD/1.1 0 EX_OK\r\nSpam: False ; -1.9 / 5.0\r\n\r\n';
    expect(parseReportAnswer(answer)).toEqual({ score: -1.9, threshold: 5, rules: [] });
  });

  it('says what spamd refused', () => {
    expect(() => parseReportAnswer(fixture('answer-bad-method.txt'))).toThrow(
      new SpamdError('spamd refused the check: Bad header line: BOGUS SPAMC/1.5 (code 76)'),
    );
  });

  it('says when the answer is not spamd’s', () => {
    expect(() => parseReportAnswer('HTTP/1.1 400 Bad Request\r\n\r\n')).toThrow(/something else than its protocol/);
    expect(() => parseReportAnswer('SPAMD/1.1 0 EX_OK\r\n\r\n')).toThrow('spamd answered without a score');
  });
});

describe('parseRuleTable', () => {
  it('is empty without the table', () => {
    expect(parseRuleTable('Content preview: 1.0 NOT_A_RULE words\n')).toEqual([]);
  });

  it('stops at the first line that is neither a row nor a continuation', () => {
    const table = '---- ----\n 1.0 A_RULE  words\nsomething else\n 2.0 B_RULE  more\n';
    expect(parseRuleTable(table)).toEqual([{ name: 'A_RULE', score: 1, description: 'words' }]);
  });
});

describe('spamdTarget', () => {
  it('reads host and port, with 783 by default', () => {
    expect(spamdTarget('spamd://127.0.0.1:7830')).toEqual({ host: '127.0.0.1', port: 7830 });
    expect(spamdTarget('spamd://spam.internal')).toEqual({ host: 'spam.internal', port: 783 });
    expect(spamdTarget('spamd://[::1]:783')).toEqual({ host: '::1', port: 783 });
  });

  it('takes only spamd://', () => {
    expect(() => spamdTarget('http://127.0.0.1:783')).toThrow('expected spamd://host[:port]');
  });
});
