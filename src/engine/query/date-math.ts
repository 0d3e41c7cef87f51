/**
 * A `range` bound on a `date` field as Elasticsearch reads it (`JavaDateMathParser`): an anchor, `now`
 * or a date followed by `||`, then any number of `+N<unit>`, `-N<unit>` and `/<unit>` steps, or a
 * plain date with no math.
 *
 * ```ts
 * dateBound('2014-11-18||/M', { now, roundUp: true });  // 2014-11-30T23:59:59.999Z
 * dateBound('now-1d/d', { now, roundUp: false, timeZone: 'Europe/Paris' });  // yesterday's Paris midnight
 * ```
 *
 * Rounding follows the operator, which the caller turns into `roundUp`: gt and lte round up, gte and
 * lt round down. Rounding up gives the unit's last millisecond (lte uses it as is; gt compares with
 * `>`, which excludes the whole unit as ES's "first millisecond not covered" does). Without `||`, a
 * date read with `roundUp` fills its missing components with ES's round-up defaults (month 01,
 * day 01, 23:59:59.999) rather than zeros: lte `2014-11-18` is 2014-11-18T23:59:59.999, but lte
 * `2014-11` is 2014-11-01T23:59:59.999, not the month's end (ES docs, "Missing date components").
 *
 * `time_zone` applies to dates that carry no zone of their own and to every step of the math,
 * never to `now` nor to epoch values, which are instants. A JSON number read without `format` is
 * epoch millis; ES then reads *both* bounds of the query as `epoch_millis`, so a caller with one
 * numeric bound passes `format: 'epoch_millis'` for the other.
 */
import { badRequest, illegalArgument } from '../errors.ts';

export interface DateBoundOptions {
  /** The request's "now", epoch ms; the same for every bound of a request. */
  now: number;
  /** true for gt and lte, false for gte and lt. */
  roundUp: boolean;
  /** ES's `format`: built-in names and simple patterns, `||`-separated; see {@link compileFormat}. */
  format?: string;
  /** An offset (`+01:00`, `-0530`, `Z`, `UTC+1`) or an IANA name (`Europe/Paris`). */
  timeZone?: string;
}

/**
 * Epoch ms of a range bound. Throws a 400: `parse_exception` for a value or math ES cannot read,
 * `illegal_argument_exception` for a `format` or `time_zone` it refuses (or deeppage does not read yet).
 */
export function dateBound(value: string | number, options: DateBoundOptions): number {
  const format = compileFormat(options.format ?? (typeof value === 'number' ? 'epoch_millis' : DEFAULT_FORMAT));
  const zone = options.timeZone === undefined ? UTC : parseTimeZone(options.timeZone);
  const text = typeof value === 'number' ? numberText(value) : value;
  if (text.startsWith('now')) return applyMath(text.slice(3), options.now, zone, options.roundUp);
  const bars = text.indexOf('||');
  if (bars < 0) return readDate(text, format, zone, options.roundUp);
  // The anchor is read as a point, not rounded up: `2014-11||/M` is November's last ms, not December's.
  return applyMath(text.slice(bars + 2), readDate(text.slice(0, bars), format, zone, false), zone, options.roundUp);
}

const DEFAULT_FORMAT = 'strict_date_optional_time||epoch_millis';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The ECMAScript time range, ±10^8 days. */
const MAX_INSTANT = 8.64e15;

const parseError = (reason: string) => badRequest('parse_exception', reason);

// ---- date math -------------------------------------------------------------------------------

type Unit = 'y' | 'M' | 'w' | 'd' | 'h' | 'm' | 's';
const UNITS: Record<string, Unit> = { y: 'y', M: 'M', w: 'w', d: 'd', h: 'h', H: 'h', m: 'm', s: 's' };

/** The steps after the anchor, left to right, with ES's messages for what it refuses. */
function applyMath(math: string, anchor: number, zone: Zone, roundUp: boolean): number {
  let instant = anchor;
  let i = 0;
  while (i < math.length) {
    const op = math[i++];
    if (op !== '/' && op !== '+' && op !== '-') throw parseError(`operator not supported for date math [${math}]`);
    if (i >= math.length) throw parseError(`truncated date math [${math}]`);
    let amount = 1;
    if (isDigit(math[i])) {
      const from = i;
      while (i < math.length && isDigit(math[i])) i++;
      if (i >= math.length) throw parseError(`truncated date math [${math}]`);
      amount = javaInt(math.slice(from, i));
    }
    if (op === '/' && amount !== 1) throw parseError(`rounding \`/\` can only be used on single unit types [${math}]`);
    const symbol = math[i++];
    const unit = UNITS[symbol];
    if (unit === undefined) throw parseError(`unit [${symbol}] not supported for date math [${math}]`);
    if (op === '/') {
      instant = startOf(instant, unit, zone);
      if (roundUp) instant = plus(instant, unit, 1, zone) - 1;
    } else {
      instant = plus(instant, unit, op === '-' ? -amount : amount, zone);
    }
    checkRange(instant, math);
  }
  return instant;
}

const isDigit = (c: string) => c >= '0' && c <= '9';

/** ES reads the amount with Java's `Integer.parseInt`, which refuses more than 2^31 − 1. */
function javaInt(digits: string): number {
  const n = Number(digits);
  if (n > 2 ** 31 - 1) throw illegalArgument(`For input string: "${digits}"`);
  return n;
}

function checkRange(instant: number, math: string): void {
  if (!(Math.abs(instant) <= MAX_INSTANT)) throw illegalArgument(`date math [${math}] goes beyond the supported range of dates`);
}

/** The first instant of the unit holding `instant`, in `zone`; weeks start on Monday. */
function startOf(instant: number, unit: Unit, zone: Zone): number {
  const offset = zone.offsetAt(instant);
  const local = instant + offset;
  const d = new Date(local);
  let start: number;
  switch (unit) {
    case 'y': start = localMillis(d.getUTCFullYear(), 1, 1); break;
    case 'M': start = localMillis(d.getUTCFullYear(), d.getUTCMonth() + 1, 1); break;
    case 'w': start = local - mod(local, DAY) - ((d.getUTCDay() + 6) % 7) * DAY; break;
    case 'd': start = local - mod(local, DAY); break;
    case 'h': start = local - mod(local, HOUR); break;
    case 'm': start = local - mod(local, MINUTE); break;
    case 's': start = local - mod(local, SECOND); break;
  }
  return fromLocal(start, zone, offset);
}

/**
 * `amount` units later, as java.time's `ZonedDateTime.plus…` does: years, months, weeks and days
 * move the local date (a month past Jan 31 is Feb 28/29) and keep the wall-clock time; hours,
 * minutes and seconds move the instant.
 */
function plus(instant: number, unit: Unit, amount: number, zone: Zone): number {
  switch (unit) {
    case 'h': return instant + amount * HOUR;
    case 'm': return instant + amount * MINUTE;
    case 's': return instant + amount * SECOND;
  }
  const offset = zone.offsetAt(instant);
  const local = instant + offset;
  let moved: number;
  if (unit === 'd' || unit === 'w') {
    moved = local + amount * (unit === 'w' ? 7 : 1) * DAY;
  } else {
    const d = new Date(local);
    const months = d.getUTCMonth() + amount * (unit === 'y' ? 12 : 1);
    const year = d.getUTCFullYear() + Math.floor(months / 12);
    const month = mod(months, 12) + 1;
    moved = localMillis(year, month, Math.min(d.getUTCDate(), daysInMonth(year, month))) + mod(local, DAY);
  }
  return fromLocal(moved, zone, offset);
}

// ---- time zones ------------------------------------------------------------------------------

/** A time zone as the offset it has at each instant (local time = instant + offset, in ms). */
interface Zone {
  offsetAt(instant: number): number;
}

const fixedZone = (offset: number): Zone => ({ offsetAt: () => offset });
const UTC = fixedZone(0);

/**
 * The instant of a local time in `zone`, as java.time resolves it: in an overlap (autumn), the
 * `preferred` offset if it is one of the two, else the earlier instant; in a gap (spring), the
 * local time moved later by the gap's length.
 */
function fromLocal(local: number, zone: Zone, preferred: number): number {
  const before = zone.offsetAt(local - DAY);
  const after = zone.offsetAt(local + DAY);
  if (before === after) return local - before;
  const valid = [before, after].filter((offset) => zone.offsetAt(local - offset) === offset);
  if (valid.length === 0) return local - before;
  if (valid.includes(preferred)) return local - preferred;
  return local - Math.max(...valid);
}

/**
 * ES's `time_zone`, read as Java's `ZoneId.of` reads it: `Z`, an offset (`+1`, `+01`, `+01:00`,
 * `+0100`, `+01:00:00`), `UTC`/`GMT`/`UT` alone or followed by an offset, or a region name.
 * Region names are case-sensitive in Java, so `europe/paris` is refused although Intl knows it.
 */
function parseTimeZone(id: string): Zone {
  const offset = parseOffset(id);
  if (offset !== undefined) return fixedZone(offset);
  const prefixed = /^(?:UTC|GMT|UT)(?=$|[+-])/.exec(id);
  if (prefixed) {
    const rest = id.slice(prefixed[0].length);
    const zoneOffset = rest === '' ? 0 : parseOffset(rest);
    if (zoneOffset !== undefined) return fixedZone(zoneOffset);
    throw illegalArgument(`java.time.DateTimeException: Invalid ID for offset-based ZoneId: ${id}`);
  }
  if (/^[+-]/.test(id)) throw illegalArgument(`java.time.DateTimeException: Invalid ID for ZoneOffset, invalid format: ${id}`);
  if (!/^[A-Za-z][A-Za-z0-9~/._+-]+$/.test(id)) {
    throw illegalArgument(`java.time.DateTimeException: Invalid ID for region-based ZoneId, invalid format: ${id}`);
  }
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: id, hourCycle: 'h23', era: 'short',
      year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  } catch {
    throw unknownZone(id);
  }
  const canonical = format.resolvedOptions().timeZone;
  if (canonical !== id && canonical.toLowerCase() === id.toLowerCase()) throw unknownZone(id);
  return { offsetAt: (instant) => ianaOffset(format, instant) };
}

const unknownZone = (id: string) => illegalArgument(`java.time.zone.ZoneRulesException: Unknown time-zone ID: ${id}`);

/** `Z`, `±h`, `±hh`, `±hh:mm`, `±hhmm`, `±hh:mm:ss`, `±hhmmss`, up to ±18:00 (ms), as `ZoneOffset.of`. */
function parseOffset(text: string): number | undefined {
  if (text === 'Z') return 0;
  const m = /^([+-])(\d{1,2})(?::?(\d{2})(?::?(\d{2}))?)?$/.exec(text);
  if (!m || (m[2].length === 1 && m[3] !== undefined)) return undefined;
  const [hours, minutes, seconds] = [m[2], m[3] ?? '0', m[4] ?? '0'].map(Number);
  const total = hours * HOUR + minutes * MINUTE + seconds * SECOND;
  if (minutes > 59 || seconds > 59 || total > 18 * HOUR) return undefined;
  return m[1] === '-' ? -total : total;
}

/** The zone's offset at `instant`, from the wall-clock time Intl gives to the second. */
function ianaOffset(format: Intl.DateTimeFormat, instant: number): number {
  if (Number.isNaN(instant)) return 0;
  const second = Math.floor(Math.max(-MAX_INSTANT, Math.min(MAX_INSTANT, instant)) / SECOND) * SECOND;
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(second)) parts[part.type] = part.value;
  const era = Number(parts.year);
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - era : era;
  const local = localMillis(year, Number(parts.month), Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return local - second;
}

// ---- reading dates ---------------------------------------------------------------------------

/** A date's fields as the text gave them; what is missing is filled in when it is read. */
interface DateFields {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  milli?: number;
  /** The zone offset written in the text (ms), which wins over `time_zone`. */
  offset?: number;
}

/** What one parser of a format made of a text: an instant (epoch formats) or date fields. */
type Reading = { instant: number; roundUpInstant: number } | { fields: DateFields };
type Parser = (text: string) => Reading | undefined;

interface DateFormat {
  /** As given, for error messages. */
  name: string;
  /** Tried in order; the first that reads the whole text wins. */
  parsers: Parser[];
}

/** ES's defaults for missing components: zeros, or with `roundUp` the end of the day (year stays). */
const DOWN = { month: 1, day: 1, hour: 0, minute: 0, second: 0, milli: 0 };
const UP = { month: 1, day: 1, hour: 23, minute: 59, second: 59, milli: 999 };

function readDate(text: string, format: DateFormat, zone: Zone, roundUp: boolean): number {
  if (text === '') throw parseError('cannot parse empty datetime');
  for (const parser of format.parsers) {
    const reading = parser(text);
    if (reading === undefined) continue;
    if ('instant' in reading) return roundUp ? reading.roundUpInstant : reading.instant;
    const f = reading.fields;
    const d = roundUp ? UP : DOWN;
    // A date without a year is in 1970, as ES fills it.
    const local = localMillis(f.year ?? 1970, f.month ?? d.month, f.day ?? d.day, f.hour ?? d.hour, f.minute ?? d.minute, f.second ?? d.second, f.milli ?? d.milli);
    // ES reads the fields in UTC, then moves them to the zone keeping the wall-clock time: UTC is the preferred offset.
    const instant = f.offset !== undefined ? local - f.offset : fromLocal(local, zone, 0);
    if (Math.abs(instant) <= MAX_INSTANT) return instant;
  }
  const failed = `failed to parse date field [${text}] with format [${format.name}]`;
  throw parseError(`${failed}: [${failed}]`);
}

/**
 * A `format` as ES's `DateFormatter.forPattern` takes it: `||`-separated alternatives, each a
 * built-in name or a pattern of yyyy, MM, dd, HH, mm, ss, SSS, quoted text and separators.
 */
function compileFormat(name: string): DateFormat {
  const parsers = name.split('||').map((element) => {
    if (element === '') throw illegalArgument('No date pattern provided');
    return Object.hasOwn(BUILT_IN, element) ? BUILT_IN[element] : compilePattern(element);
  });
  return { name, parsers };
}

const unsupportedFormat = (format: string) => illegalArgument(`deeppage does not support the date format [${format}] yet`);

/** A JSON number as ES prints it before parsing it with the format; NaN and ∞ never parse. */
function numberText(value: number): string {
  return Number.isFinite(value) ? String(value) : '';
}

/**
 * `epoch_millis` (a fraction of up to 6 digits) or `epoch_second` (up to 9), negative values
 * allowed. `unit` is the epoch unit in ms; the fraction is counted in integers to stay exact.
 */
function epochParser(unit: number, fractionDigits: number): Parser {
  const pattern = new RegExp(`^(-?)(\\d{1,19})(?:\\.(\\d{0,${fractionDigits}}))?$`);
  const perUnit = 10 ** fractionDigits;
  return (text) => {
    const m = pattern.exec(text);
    if (!m) return undefined;
    const whole = Number(m[2]) * unit;
    const fraction = m[3] ? (Number(m[3].padEnd(fractionDigits, '0')) * unit) / perUnit : 0;
    // Java keeps nanos; a date field keeps the millisecond the instant falls in.
    const instant = m[1] === '-' ? -(whole + Math.ceil(fraction)) : whole + Math.floor(fraction);
    if (!(Math.abs(instant) <= MAX_INSTANT)) return undefined;
    // Rounding up fills a missing fraction with 9s: the unit's last millisecond.
    const roundUpInstant = m[3] ? instant : instant + unit - 1;
    return { instant, roundUpInstant };
  };
}

/** A parser from a regex whose named groups are the fields; it refuses impossible dates. */
function fieldsParser(pattern: RegExp): Parser {
  return (text) => {
    const groups = pattern.exec(text)?.groups;
    if (!groups) return undefined;
    const fields: DateFields = {};
    for (const key of ['year', 'month', 'day', 'hour', 'minute', 'second'] as const) {
      if (groups[key] !== undefined) fields[key] = Number(groups[key]);
    }
    if (groups.fraction !== undefined) fields.milli = Number(groups.fraction.padEnd(3, '0').slice(0, 3));
    if (groups.zone !== undefined) fields.offset = parseOffset(groups.zone);
    return validDate(fields) ? { fields } : undefined;
  };
}

function validDate(f: DateFields): boolean {
  const month = f.month ?? 1;
  if (month < 1 || month > 12) return false;
  if (f.day !== undefined && (f.day < 1 || f.day > daysInMonth(f.year ?? 1970, month))) return false;
  if ((f.hour ?? 0) > 23 || (f.minute ?? 0) > 59 || (f.second ?? 0) > 59) return false;
  return f.offset === undefined || Math.abs(f.offset) <= 18 * HOUR;
}

// Years as java.time's strict ISO parsers take them: four digits, or a sign and more.
const STRICT_YEAR = '(?<year>\\d{4}|-\\d{4,9}|\\+\\d{5,9})';
const LENIENT_YEAR = '(?<year>[+-]?\\d{1,9})';
const ZONE = '(?<zone>Z|[+-]\\d{2}(?::?\\d{2})?)';
const optionalTime = (digits: string) =>
  `(?:T(?:(?<hour>\\d${digits})(?::(?<minute>\\d${digits})(?::(?<second>\\d${digits})(?:[.,](?<fraction>\\d{1,9}))?)?)?)?${ZONE}?)?`;

const BUILT_IN: Record<string, Parser> = {
  strict_date_optional_time: fieldsParser(new RegExp(`^${STRICT_YEAR}(?:-(?<month>\\d{2})(?:-(?<day>\\d{2}))?)?${optionalTime('{2}')}$`)),
  date_optional_time: fieldsParser(new RegExp(`^${LENIENT_YEAR}(?:-(?<month>\\d{1,2})(?:-(?<day>\\d{1,2}))?)?${optionalTime('{1,2}')}$`)),
  strict_date: fieldsParser(new RegExp(`^${STRICT_YEAR}-(?<month>\\d{2})-(?<day>\\d{2})$`)),
  date: fieldsParser(new RegExp(`^${LENIENT_YEAR}-(?<month>\\d{1,2})-(?<day>\\d{1,2})$`)),
  basic_date: fieldsParser(/^(?<year>\d{4})(?<month>\d{2})(?<day>\d{2})$/),
  epoch_millis: epochParser(1, 6),
  epoch_second: epochParser(SECOND, 9),
};

/** The pattern letters deeppage reads, each a fixed number of digits as java.time parses them. */
const PATTERN_FIELDS: Record<string, string> = {
  yyyy: '(?<year>\\d{4})',
  MM: '(?<month>\\d{2})',
  dd: '(?<day>\\d{2})',
  HH: '(?<hour>\\d{2})',
  mm: '(?<minute>\\d{2})',
  ss: '(?<second>\\d{2})',
  SSS: '(?<fraction>\\d{3})',
};

/** A Java-style pattern such as `dd/MM/yyyy` or `yyyy-MM-dd'T'HH:mm`; other letters are refused. */
function compilePattern(pattern: string): Parser {
  let source = '';
  const seen = new Set<string>();
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      const token = pattern.slice(i, j);
      if (PATTERN_FIELDS[token] === undefined || seen.has(token)) throw unsupportedFormat(pattern);
      seen.add(token);
      source += PATTERN_FIELDS[token];
      i = j;
    } else if (c === "'") {
      // Quoted text; '' is a quote, inside quotes or out.
      let text = '';
      for (i++; ; i++) {
        if (i >= pattern.length) throw unsupportedFormat(pattern);
        if (pattern[i] !== "'") text += pattern[i];
        else if (pattern[i + 1] === "'") text += pattern[i++];
        else break;
      }
      source += text === '' ? "'" : escapeRegex(text);
      i++;
    } else if ('[]{}#'.includes(c)) {
      throw unsupportedFormat(pattern);
    } else {
      source += escapeRegex(c);
      i++;
    }
  }
  return fieldsParser(new RegExp(`^${source}$`));
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

// ---- calendar --------------------------------------------------------------------------------

const mod = (a: number, b: number) => ((a % b) + b) % b;

/** Epoch ms of a wall-clock time read as UTC (proleptic Gregorian, any year, month 1–12). */
function localMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, milli = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, milli);
  return d.getTime();
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
