/**
 * Estimating how many contacts match a condition from a sample of the contacts table's pages
 * (`TABLESAMPLE SYSTEM`), for the segment builder: an answer in a fixed time whatever the size.
 */

/** The percentage of the table's pages to read for about `rows` rows, or null when reading all is as cheap. */
export function samplePercent(tableRows: number, rows: number): number | null {
  if (tableRows <= rows * 2) return null;
  return (100 * rows) / tableRows;
}

export interface SampleCounts {
  /** Rows of the sample, of every project. */
  rows: number;
  /** The project's contacts among them. */
  sampled: number;
  /** Those of them matching the condition. */
  matched: number;
}

/**
 * Scales a sample up to the project, given the table's row count: the matching contacts, the
 * project's contacts, and the half-width of the 95 % interval of the first (normal approximation
 * of the share that matched). The project's size comes from its share of the sampled rows, not
 * from the share of pages read: how many rows the random pages hold varies far more.
 */
export function estimateFromSample(counts: SampleCounts, tableRows: number) {
  const contacts = counts.rows === 0 ? 0 : (tableRows * counts.sampled) / counts.rows;
  const share = counts.sampled === 0 ? 0 : counts.matched / counts.sampled;
  const margin = counts.sampled === 0 ? 0 : 1.96 * Math.sqrt((share * (1 - share)) / counts.sampled) * contacts;
  return {
    estimate: Math.round(share * contacts),
    contacts: Math.round(contacts),
    margin: Math.ceil(margin),
  };
}
