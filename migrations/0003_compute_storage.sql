CREATE TABLE "network_storages" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"cluster_id" text NOT NULL,
	"name" text NOT NULL,
	"size_gb" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "network_storages_team" ON "network_storages" USING btree ("team_id","id");