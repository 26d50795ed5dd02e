CREATE TABLE "spend_holds" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text,
	"key_id" text,
	"amount_micro" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "spend_holds_team" ON "spend_holds" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "spend_holds_member" ON "spend_holds" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "spend_holds_key" ON "spend_holds" USING btree ("key_id");