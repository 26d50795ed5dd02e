ALTER TABLE "llm_models" ADD COLUMN "cached_input_price_per_m_units" bigint;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "cached_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "reasoning_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "cached_input_price_per_m_units" bigint;