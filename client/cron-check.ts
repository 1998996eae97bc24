/**
 * A check of a cron expression before it reaches Temporal, whose own refusal does not say which
 * field is wrong. Takes the five standard fields (minute hour day-of-month month day-of-week) or
 * one of the descriptors Temporal knows (`@daily`, `@hourly`, …).
 */

interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** Whether `?` (no specific value) is allowed, as in day-of-month and day-of-week. */
  readonly any?: boolean;
}

const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const days = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const fields: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, any: true },
  { name: 'month', min: 1, max: 12, names: months },
  // 7 is Sunday too, as in most crons.
  { name: 'day-of-week', min: 0, max: 7, names: days, any: true },
];

/** The descriptors Temporal takes in place of the five fields. */
export const cronDescriptors: readonly string[] = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

function valueOf(text: string, field: CronField): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index < 0) return undefined;
  return field.name === 'month' ? index + 1 : index;
}

/** What is wrong with one item of a field's comma-separated list, or undefined when it is fine. */
function itemProblem(item: string, field: CronField): string | undefined {
  const [range = '', step, ...rest] = item.split('/');
  if (rest.length) return `'${item}' has more than one '/'`;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0)) return `'${item}' has step '${step}'; a step is a positive whole number`;
  if (range === '*' || (range === '?' && field.any)) return undefined;
  const bounds = range.split('-');
  if (bounds.length > 2 || bounds.some((b) => b === '')) return `'${item}' is not a value, a range a-b or *`;
  const values = bounds.map((b) => valueOf(b, field));
  for (const [i, value] of values.entries()) {
    const names = field.names ? ` or ${field.names[0]}-${field.names[field.names.length - 1]}` : '';
    if (value === undefined) return `'${bounds[i]}' is not a number${names}`;
    if (value < field.min || value > field.max) return `'${bounds[i]}' is out of range ${field.min}-${field.max}`;
  }
  const [from, to] = values as [number, number | undefined];
  if (to !== undefined && to < from) return `'${range}' ends before it starts`;
  return undefined;
}

/**
 * What is wrong with a cron expression, naming the field (`hour field '25' is out of range
 * 0-23`), or undefined when it is well-formed.
 */
export function cronProblem(expression: string): string | undefined {
  const text = expression.trim();
  if (text.startsWith('@')) return cronDescriptors.includes(text.toLowerCase()) ? undefined : `'${text}' is not one of ${cronDescriptors.join(', ')}`;
  const parts = text.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== fields.length) {
    return `has ${parts.length} field${parts.length === 1 ? '' : 's'}; a cron expression has 5: ${fields.map((f) => f.name).join(' ')} (e.g. '0 9 * * *': every day at 09:00)`;
  }
  for (const [i, part] of parts.entries()) {
    const field = fields[i] as CronField;
    for (const item of part.split(',')) {
      const problem = itemProblem(item, field);
      if (problem !== undefined) return `${field.name} field ${problem}`;
    }
  }
  return undefined;
}
