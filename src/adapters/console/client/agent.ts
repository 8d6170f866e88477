// A session's or an event's User-Agent as a person reads it ("Chrome 131 on Windows"), for the
// Sessions and Security activity lists. Only the browser families and systems people meet are
// named; anything else (curl, an SDK, a bot) is shown as sent, cut to a readable length. The
// full string stays in the row's title.

const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  // Order matters: Edge and Opera say "Chrome", Chrome says "Safari", Chrome on iOS says neither.
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/\bHeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/\b(?:Chrome|CriOS)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)(?:[.\d]*)? (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];

const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

const MAX_RAW = 60;

export function describeAgent(ua: string): string {
  const text = ua.trim();
  if (!text) return 'Unknown browser';
  let browser: string | null = null;
  for (const [re, name] of BROWSERS) {
    const m = re.exec(text);
    if (m) {
      browser = `${name} ${m[1]}`;
      break;
    }
  }
  if (browser === null) return text.length > MAX_RAW ? `${text.slice(0, MAX_RAW - 1)}…` : text;
  const system = SYSTEMS.find(([re]) => re.test(text))?.[1];
  return system ? `${browser} on ${system}` : browser;
}
