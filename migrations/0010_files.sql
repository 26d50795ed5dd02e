CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text,
	"key_id" text,
	"state" text NOT NULL,
	"filename" text NOT NULL,
	"purpose" text NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"sha256" text DEFAULT '' NOT NULL,
	"total_requests" integer DEFAULT 0 NOT NULL,
	"blob_key" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"expires_at_ms" bigint NOT NULL,
	"sweep_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "files_team_id" ON "files" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "files_sweep" ON "files" USING btree ("sweep_at_ms");