import { isValidTimeZone } from '../tools/current-time.js';
import { parseExpression } from '../tools/expression.js';

/**
 * What the offline provider recognises in a user message. Plain patterns, no model: enough to
 * exercise every tool path of the service (events, audit, costs) on a machine with no key.
 */
export type OfflineIntent =
  | { tool: 'current_time'; args: { timezone?: string }; unknownPlace?: string }
  | { tool: 'calculator'; args: { expression: string } }
  | { tool: 'memory_search'; args: { query: string } }
  | { tool: 'web_fetch'; args: { url: string } };

const MEMORY_PATTERNS = [
  /\bsearch (?:in )?(?:my |the |your )?(?:memory|memories|history|notes|conversations?) (?:for|about) (.+)/i,
  /\bwhat (?:did|have) I (?:say|said|tell you|told you|write|written|mention|mentioned) about (.+)/i,
  /\b(?:do you remember|recall) (?:what I said about |anything about )?(.+)/i,
];

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/i;

const TIME_PATTERN =
  /\b(?:what(?:'s| is)? (?:the )?(?:current |local )?(?:time|date)|what time is it|what day is (?:it|today)|(?:current|local) time|today's date|time is it)\b/i;

/** Cities people ask about whose IANA zone is named after another city, or not after a city. */
const PLACE_ZONES: Record<string, string> = {
  'utc': 'UTC', 'gmt': 'UTC',
  'new york': 'America/New_York', 'nyc': 'America/New_York', 'washington': 'America/New_York', 'boston': 'America/New_York',
  'san francisco': 'America/Los_Angeles', 'seattle': 'America/Los_Angeles', 'california': 'America/Los_Angeles',
  'beijing': 'Asia/Shanghai', 'china': 'Asia/Shanghai', 'delhi': 'Asia/Kolkata', 'new delhi': 'Asia/Kolkata',
  'mumbai': 'Asia/Kolkata', 'bangalore': 'Asia/Kolkata', 'india': 'Asia/Kolkata', 'japan': 'Asia/Tokyo',
  'osaka': 'Asia/Tokyo', 'kyoto': 'Asia/Tokyo', 'korea': 'Asia/Seoul', 'uk': 'Europe/London', 'england': 'Europe/London',
  'france': 'Europe/Paris', 'germany': 'Europe/Berlin', 'munich': 'Europe/Berlin', 'spain': 'Europe/Madrid',
  'italy': 'Europe/Rome', 'milan': 'Europe/Rome', 'netherlands': 'Europe/Amsterdam', 'australia': 'Australia/Sydney',
  'hawaii': 'Pacific/Honolulu', 'rio': 'America/Sao_Paulo', 'brazil': 'America/Sao_Paulo', 'montreal': 'America/Toronto',
  'geneva': 'Europe/Zurich', 'st petersburg': 'Europe/Moscow', 'russia': 'Europe/Moscow', 'austin': 'America/Chicago',
  'dallas': 'America/Chicago', 'houston': 'America/Chicago', 'miami': 'America/New_York', 'atlanta': 'America/New_York',
};

function normalisePlace(place: string): string {
  return place
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[_.]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

let zonesByCity: Map<string, string> | undefined;

/** Resolves "Tokyo", "the UK" or "Europe/Madrid" to an IANA zone, or undefined. */
export function resolveTimeZone(place: string): string | undefined {
  const cleaned = place.trim();
  if (cleaned.includes('/') && isValidTimeZone(cleaned)) return cleaned;
  const key = normalisePlace(cleaned).replace(/^the /, '');
  if (PLACE_ZONES[key]) return PLACE_ZONES[key];
  zonesByCity ??= new Map(
    Intl.supportedValuesOf('timeZone').map((zone) => [normalisePlace(zone.split('/').pop()!), zone] as const),
  );
  return zonesByCity.get(key);
}

function detectTime(text: string): OfflineIntent | null {
  const match = TIME_PATTERN.exec(text);
  if (!match) return null;
  const after = text.slice(match.index + match[0].length);
  const place = /\b(?:in|at|for)\s+(.+?)\s*(?:right now|now|today)?\s*[?.!]*\s*$/i.exec(after)?.[1]?.trim();
  if (!place) return { tool: 'current_time', args: {} };
  const zone = resolveTimeZone(place);
  return zone ? { tool: 'current_time', args: { timezone: zone } } : { tool: 'current_time', args: {}, unknownPlace: place };
}

const WORD_OPERATORS: [RegExp, string][] = [
  [/\bmultiplied by\b|\btimes\b|×/gi, '*'],
  [/\bdivided by\b|÷/gi, '/'],
  [/\bplus\b/gi, '+'],
  [/\bminus\b/gi, '-'],
  [/\bto the power of\b/gi, '^'],
  [/(\d)\s*x\s*(?=\d)/gi, '$1*'],
];

function asExpression(candidate: string): string | null {
  let expr = candidate.trim().replace(/[?!=.]+$/, '').trim();
  for (const [pattern, op] of WORD_OPERATORS) expr = expr.replace(pattern, op);
  if (!/\d/.test(expr) || !/[-+*/%^(]/.test(expr)) return null;
  try {
    parseExpression(expr);
    return expr;
  } catch {
    return null;
  }
}

function detectMath(text: string): OfflineIntent | null {
  const lead = /^\s*(?:please\s+)?(?:what(?:'s| is)|calculate|compute|evaluate|how much is|solve)\s+(.+)$/i.exec(text);
  const expression = asExpression(lead ? lead[1]! : text);
  return expression ? { tool: 'calculator', args: { expression } } : null;
}

/** The tool calls a message asks for, in a stable order; empty when it asks for none we know. */
export function detectIntents(message: string): OfflineIntent[] {
  const text = message.trim();
  for (const pattern of MEMORY_PATTERNS) {
    // Memory search requires every word, so a leading article would only lose matches.
    const query = pattern.exec(text)?.[1]?.trim().replace(/[?.!]+$/, '').replace(/^["']|["']$/g, '').replace(/^(?:the|a|an|my|our)\s+/i, '').trim();
    if (query) return [{ tool: 'memory_search', args: { query } }];
  }
  const intents: OfflineIntent[] = [];
  const url = URL_PATTERN.exec(text)?.[0].replace(/[.,;:!?)\]}]+$/, '');
  if (url) intents.push({ tool: 'web_fetch', args: { url } });
  const rest = url ? text.replace(URL_PATTERN, ' ') : text;
  const time = detectTime(rest);
  if (time) intents.push(time);
  else if (!url) {
    const math = detectMath(rest);
    if (math) intents.push(math);
  }
  return intents;
}
