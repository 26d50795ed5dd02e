CREATE TABLE "gpu_clusters" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"region" text DEFAULT '' NOT NULL,
	"support_network_storage" boolean DEFAULT false NOT NULL,
	"support_instance_network" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gpu_inventory" (
	"product_id" text NOT NULL,
	"cluster_id" text NOT NULL,
	"total_gpus" integer NOT NULL,
	CONSTRAINT "gpu_inventory_product_id_cluster_id_pk" PRIMARY KEY("product_id","cluster_id")
);
--> statement-breakpoint
CREATE TABLE "gpu_products" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"gpu_model" text NOT NULL,
	"cpu_per_gpu" integer NOT NULL,
	"memory_per_gpu_gb" integer NOT NULL,
	"disk_per_gpu_gb" integer NOT NULL,
	"min_rootfs_gb" integer DEFAULT 10 NOT NULL,
	"max_rootfs_gb" integer DEFAULT 500 NOT NULL,
	"price_units_per_gpu_hour" bigint NOT NULL,
	"spot_price_units_per_gpu_hour" bigint NOT NULL,
	"monthly_price_units_per_gpu" bigint NOT NULL,
	"billing_methods" jsonb NOT NULL,
	"node_selector" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"available" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text,
	"key_id" text,
	"name" text NOT NULL,
	"cluster_id" text NOT NULL,
	"product_id" text NOT NULL,
	"product_name" text NOT NULL,
	"template_id" text,
	"status" text NOT NULL,
	"status_since_ms" bigint NOT NULL,
	"status_error_state" text DEFAULT '' NOT NULL,
	"status_error_message" text DEFAULT '' NOT NULL,
	"image_url" text NOT NULL,
	"image_auth_id" text DEFAULT '' NOT NULL,
	"command" text DEFAULT '' NOT NULL,
	"entrypoint" text DEFAULT '' NOT NULL,
	"gpu_num" integer NOT NULL,
	"cpu_num" integer NOT NULL,
	"memory_gb" integer NOT NULL,
	"rootfs_size" integer NOT NULL,
	"ports" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"envs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"volume_mounts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"kind" text DEFAULT 'gpu' NOT NULL,
	"billing_mode" text NOT NULL,
	"price_units_per_gpu_hour" bigint NOT NULL,
	"end_time_s" bigint DEFAULT -1 NOT NULL,
	"spot_status" text DEFAULT '' NOT NULL,
	"spot_reclaim_time_s" bigint DEFAULT 0 NOT NULL,
	"meter_from_ms" bigint,
	"metered_seconds" bigint DEFAULT 0 NOT NULL,
	"metered_micro" bigint DEFAULT 0 NOT NULL,
	"next_reconcile_at_ms" bigint,
	"lease_until_ms" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_auths" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"name" text NOT NULL,
	"username" text NOT NULL,
	"password_enc" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "templates" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text,
	"channel" text NOT NULL,
	"name" text NOT NULL,
	"readme" text DEFAULT '' NOT NULL,
	"type" text DEFAULT 'instance' NOT NULL,
	"image" text NOT NULL,
	"image_auth" text DEFAULT '' NOT NULL,
	"start_command" text DEFAULT '' NOT NULL,
	"entrypoint" text DEFAULT '' NOT NULL,
	"rootfs_size" integer NOT NULL,
	"ports" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"envs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"recommend_cards" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"min_cuda_version" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gpu_inventory" ADD CONSTRAINT "gpu_inventory_product_id_gpu_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."gpu_products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gpu_inventory" ADD CONSTRAINT "gpu_inventory_cluster_id_gpu_clusters_id_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."gpu_clusters"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "instances_team_id" ON "instances" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "instances_team_status" ON "instances" USING btree ("team_id","status","id");--> statement-breakpoint
CREATE INDEX "instances_due" ON "instances" USING btree ("next_reconcile_at_ms");--> statement-breakpoint
CREATE INDEX "instances_capacity" ON "instances" USING btree ("product_id","cluster_id");--> statement-breakpoint
CREATE INDEX "registry_auths_team" ON "registry_auths" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "templates_team" ON "templates" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "templates_channel" ON "templates" USING btree ("channel","id");