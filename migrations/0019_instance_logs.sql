CREATE TABLE "instance_logs" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"team_id" text NOT NULL,
	"source" text NOT NULL,
	"at_ms" bigint NOT NULL,
	"line" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "instance_logs_instance" ON "instance_logs" USING btree ("instance_id","seq");--> statement-breakpoint
CREATE INDEX "instance_logs_workload" ON "instance_logs" USING btree ("instance_id","source","at_ms");