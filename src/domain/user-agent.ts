/**
 * "Firefox on Windows": what a session's User-Agent says about the device, for a person to
 * recognise their own sessions. A rough reading of the common browsers; anything else is "Unknown
 * browser" (an API client such as curl is named by its product).
 */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\//, 'Opera'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/Chrom(?:e|ium)\/|\bCriOS\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^node\b|\bundici\b/i, 'Node.js'],
];
const SYSTEMS: readonly [RegExp, string][] = [
  [/\biPhone\b|\biPad\b|\biOS\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

const first = (table: readonly [RegExp, string][], ua: string) => table.find(([re]) => re.test(ua))?.[1];

export function describeDevice(userAgent: string): string {
  const browser = first(BROWSERS, userAgent);
  const system = first(SYSTEMS, userAgent);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `Browser on ${system}` : 'Unknown browser');
}
