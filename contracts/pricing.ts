/**
 * Prices of model calls, set by the user (never built in: providers change them). A worker
 * prices each model call with its table when the call ends, and the price travels in the call's
 * recorded result, so a run's cost replays exactly whatever the table says later.
 */
import { z } from 'zod';
import { builtOnce } from './lazy';

/** What one model costs, per million tokens, in the table's currency. */
export const modelPriceSchema = builtOnce(() =>
  z.object({
    inputPerMillion: z.number().nonnegative(),
    /** Prompt tokens the provider served from its cache; `inputPerMillion` when absent. */
    cachedInputPerMillion: z.number().nonnegative().optional(),
    outputPerMillion: z.number().nonnegative(),
  }),
);
export type ModelPrice = z.infer<ReturnType<typeof modelPriceSchema>>;

/**
 * A price table: one currency, prices by model name (as the run asks for it, or as the provider
 * names it in its answer). The numbers in the docs are examples, not current prices.
 */
export const priceTableSchema = builtOnce(() =>
  z.object({
    /** An ISO 4217 code, e.g. `USD`. */
    currency: z.string().regex(/^[A-Z]{3}$/, 'a three-letter currency code such as USD'),
    models: z.record(z.string().min(1), modelPriceSchema()),
  }),
);
export type PriceTable = z.infer<ReturnType<typeof priceTableSchema>>;

/** The cost of one model call in money; absent from an answer whose model has no price, or whose usage is unknown. */
export const modelCallCostSchema = builtOnce(() => z.object({ amount: z.number().nonnegative(), currency: z.string() }));
export type ModelCallCost = z.infer<ReturnType<typeof modelCallCostSchema>>;

/** Token counts a price applies to. */
export interface PricedUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Of `promptTokens`, those served from the provider's cache. */
  readonly cachedPromptTokens?: number;
}

/** The price of `model` in `table`: by the name the run asked for, else by the name the provider answered with. */
export function priceOf(table: PriceTable, model: string, answeredModel?: string): ModelPrice | undefined {
  return table.models[model] ?? (answeredModel !== undefined ? table.models[answeredModel] : undefined);
}

/** What a call with this usage costs at this price, in the table's currency (not rounded). */
export function callCost(usage: PricedUsage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const fresh = usage.promptTokens - cached;
  return (fresh * price.inputPerMillion + cached * (price.cachedInputPerMillion ?? price.inputPerMillion) + usage.completionTokens * price.outputPerMillion) / 1_000_000;
}
