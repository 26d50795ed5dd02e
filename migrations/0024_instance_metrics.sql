CREATE TABLE "instance_metrics" (
	"instance_id" text NOT NULL,
	"at_ms" bigint NOT NULL,
	"cpu_pct" double precision,
	"mem_pct" double precision,
	"root_disk_pct" double precision,
	"gpus" jsonb DEFAULT '[]'::jsonb NOT NULL,
	CONSTRAINT "instance_metrics_instance_id_at_ms_pk" PRIMARY KEY("instance_id","at_ms")
);
--> statement-breakpoint
CREATE INDEX "instance_metrics_at" ON "instance_metrics" USING btree ("at_ms");