CREATE TABLE "media_models" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "media_models_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" text,
	"name" text NOT NULL,
	"sd_name" text NOT NULL,
	"sd_name_in_api" text NOT NULL,
	"hash_sha256" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"categories" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"search" text NOT NULL,
	"cover_url" text DEFAULT '' NOT NULL,
	"source" text NOT NULL,
	"base_model" text DEFAULT '' NOT NULL,
	"base_model_type" text DEFAULT 'Standard' NOT NULL,
	"is_sdxl" boolean DEFAULT false NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"blob_key" text NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"updated_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "media_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"key_id" text NOT NULL,
	"task_type" text NOT NULL,
	"status" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"request" jsonb NOT NULL,
	"extra" jsonb NOT NULL,
	"cost_micro" bigint NOT NULL,
	"progress_percent" integer DEFAULT 0 NOT NULL,
	"outputs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"updated_at_ms" bigint NOT NULL,
	"ended_at_ms" bigint
);
--> statement-breakpoint
CREATE UNIQUE INDEX "media_models_public_name" ON "media_models" USING btree ("sd_name_in_api") WHERE team_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "media_models_team_name" ON "media_models" USING btree ("team_id","sd_name_in_api") WHERE team_id is not null;--> statement-breakpoint
CREATE INDEX "media_models_team_id" ON "media_models" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "media_models_type_id" ON "media_models" USING btree ("type","id");--> statement-breakpoint
CREATE INDEX "media_tasks_team_id" ON "media_tasks" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "media_tasks_open" ON "media_tasks" USING btree ("created_at_ms") WHERE ended_at_ms is null;--> statement-breakpoint
CREATE INDEX "media_tasks_ended" ON "media_tasks" USING btree ("ended_at_ms") WHERE ended_at_ms is not null;--> statement-breakpoint
-- filter.query is a substring search (LIKE '%…%' over the lower-cased sd_name, name and tags):
-- a trigram index where the server has pg_trgm (PostgreSQL's contrib, a trusted extension);
-- without it (the embedded store, a server without contrib) the search scans, which small
-- catalogues do not notice.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX IF NOT EXISTS media_models_search_trgm ON media_models USING gin (search gin_trgm_ops);
EXCEPTION WHEN others THEN
  RAISE NOTICE 'pg_trgm is not available: filter.query scans the catalogue (%)', SQLERRM;
END
$$;
