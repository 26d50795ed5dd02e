CREATE TABLE "ssh_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"name" text NOT NULL,
	"key_type" text NOT NULL,
	"public_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ssh_keys_team_fingerprint" ON "ssh_keys" USING btree ("team_id","fingerprint");--> statement-breakpoint
CREATE INDEX "ssh_keys_member" ON "ssh_keys" USING btree ("member_id");