/**
 * The project's default time zone, as the settings page offers it: the zone of a contact whose data
 * gives none, when a workflow waits until a time of day.
 */

export const DEFAULT_ZONE_HINT = 'Used for contacts whose data gives no time zone, country or locale';

/** The browser's zones, or only UTC where it cannot list them. */
function browserZones(): readonly string[] {
  return (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
}

/**
 * The zones to choose from: UTC first, then those the browser knows; the saved zone is kept even if
 * this browser does not list it, so that saving something else never changes it by accident.
 */
export function defaultZoneOptions(saved: string, known: readonly string[] = browserZones()) {
  const zones = ['UTC', ...known.filter((zone) => zone !== 'UTC')];
  if (!zones.includes(saved)) zones.splice(1, 0, saved);
  return zones.map((zone) => ({ value: zone, label: zone.replaceAll('_', ' ') }));
}
