CREATE TABLE "responses" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"key_id" text NOT NULL,
	"body" text NOT NULL,
	"conversation" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"expires_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "responses_team_id" ON "responses" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "responses_expires" ON "responses" USING btree ("expires_at_ms");