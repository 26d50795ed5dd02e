CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"invited_by" text NOT NULL,
	"status" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"expires_at_ms" bigint NOT NULL,
	"ended_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "person_links" (
	"id" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"token_hash" text,
	"password_hash" text,
	"invitation_id" text,
	"created_at_ms" bigint NOT NULL,
	"expires_at_ms" bigint NOT NULL,
	"used_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "persons" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"email_verified_at_ms" bigint,
	"created_at_ms" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "ref" text;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "person_id" text;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "person_id" text;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invitations_team" ON "invitations" USING btree ("team_id","created_at_ms");--> statement-breakpoint
CREATE UNIQUE INDEX "person_links_token" ON "person_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "person_links_expiry" ON "person_links" USING btree ("expires_at_ms");--> statement-breakpoint
CREATE UNIQUE INDEX "persons_email_lower" ON "persons" USING btree (lower("email"));--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_person_id_persons_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."persons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_sessions_person" ON "console_sessions" USING btree ("person_id");--> statement-breakpoint
CREATE UNIQUE INDEX "members_team_person" ON "members" USING btree ("team_id","person_id");