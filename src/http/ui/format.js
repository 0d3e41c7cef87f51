/** Numbers and times as the page writes them, in the reader's locale. */

const counts = new Intl.NumberFormat();
const milliseconds = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact' });
const times = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A count of hits or pages: `135,233`. */
export const formatCount = (n) => counts.format(n);

/** A duration: `7.3 ms`. */
export const formatMs = (ms) => `${milliseconds.format(ms)} ms`;

/** A number without its unit, to a tenth: an axis tick. */
export const formatTenths = (n) => milliseconds.format(n);

/** A depth on an axis: `50K`. */
export const formatCompact = (n) => compact.format(n);

/** An ISO time, as the reader's clock shows it: `Nov 28, 2026, 5:01:02 AM`. */
export const formatTime = (iso) => times.format(new Date(iso));
