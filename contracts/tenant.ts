import { z } from 'zod';
import { builtOnce } from './lazy';

/** Longest tenant id: it is a search attribute value, a label of metrics and a path of the API. */
export const maxTenantIdChars = 64;

/**
 * A tenant id: whose run or session it is (a customer of a deployment that serves many). A
 * bounded printable id, so it is safe in a visibility query, a metric label and a log line:
 * 1–64 of letters, digits and `.`, `_`, `-`, `:`, `@`, starting with a letter or digit.
 */
export const tenantIdSchema = builtOnce(() =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(maxTenantIdChars, `at most ${maxTenantIdChars} characters`)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]*$/, 'a tenant id is letters, digits and . _ - : @, starting with a letter or digit'),
);
