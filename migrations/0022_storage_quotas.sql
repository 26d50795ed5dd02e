CREATE TABLE "storage_quotas" (
	"team_id" text PRIMARY KEY NOT NULL,
	"files_max_bytes" bigint,
	"files_max_count" integer,
	"media_max_bytes" bigint,
	"media_max_count" integer,
	"updated_at_ms" bigint NOT NULL
);
