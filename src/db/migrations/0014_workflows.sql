CREATE TYPE "public"."workflow_execution_status" AS ENUM('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED');--> statement-breakpoint
CREATE TYPE "public"."workflow_step_execution_status" AS ENUM('PENDING', 'SCHEDULED', 'WAITING', 'RUNNING', 'COMPLETED', 'SKIPPED', 'FAILED');--> statement-breakpoint
CREATE TYPE "public"."workflow_step_type" AS ENUM('TRIGGER', 'SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT');--> statement-breakpoint
CREATE TYPE "public"."workflow_trigger_kind" AS ENUM('EVENT', 'MANUAL');--> statement-breakpoint
CREATE TYPE "public"."workflow_trigger_type" AS ENUM('EVENT', 'MANUAL', 'SCHEDULE');--> statement-breakpoint
CREATE TYPE "public"."workflow_wait_outcome" AS ENUM('EVENT', 'TIMEOUT');--> statement-breakpoint
CREATE TABLE "workflow_entries" (
	"workflow_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"entered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_entries_workflow_id_contact_id_pk" PRIMARY KEY("workflow_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "workflow_execution_counts" (
	"workflow_id" uuid NOT NULL,
	"status" "workflow_execution_status" NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_executions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"status" "workflow_execution_status" DEFAULT 'RUNNING' NOT NULL,
	"trigger_kind" "workflow_trigger_kind" NOT NULL,
	"trigger_event_id" uuid,
	"current_step_id" uuid,
	"exit_reason" text,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"due_at" timestamp with time zone,
	"leased_until" timestamp with time zone,
	"waiting_for" text,
	"waiting_since" timestamp with time zone,
	"wait_outcome" "workflow_wait_outcome",
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_step_executions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"execution_id" uuid NOT NULL,
	"step_id" uuid,
	"step_type" "workflow_step_type" NOT NULL,
	"step_name" text NOT NULL,
	"status" "workflow_step_execution_status" NOT NULL,
	"output" jsonb,
	"error" text,
	"execute_after" timestamp with time zone,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_steps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workflow_id" uuid NOT NULL,
	"type" "workflow_step_type" NOT NULL,
	"name" text NOT NULL,
	"position" jsonb NOT NULL,
	"config" jsonb NOT NULL,
	"template_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_steps_workflow_step_unique" UNIQUE("workflow_id","id")
);
--> statement-breakpoint
CREATE TABLE "workflow_transitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workflow_id" uuid NOT NULL,
	"from_step_id" uuid NOT NULL,
	"to_step_id" uuid NOT NULL,
	"condition" jsonb,
	"wait_outcome" "workflow_wait_outcome",
	"priority" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"trigger_type" "workflow_trigger_type" DEFAULT 'EVENT' NOT NULL,
	"trigger_config" jsonb,
	"event_name" text,
	"enabled" boolean DEFAULT false NOT NULL,
	"allow_reentry" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_entries" ADD CONSTRAINT "workflow_entries_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_entries" ADD CONSTRAINT "workflow_entries_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_current_step_id_workflow_steps_id_fk" FOREIGN KEY ("current_step_id") REFERENCES "public"."workflow_steps"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_step_executions" ADD CONSTRAINT "workflow_step_executions_execution_id_workflow_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."workflow_executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_step_executions" ADD CONSTRAINT "workflow_step_executions_step_id_workflow_steps_id_fk" FOREIGN KEY ("step_id") REFERENCES "public"."workflow_steps"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_steps" ADD CONSTRAINT "workflow_steps_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_steps" ADD CONSTRAINT "workflow_steps_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_transitions" ADD CONSTRAINT "workflow_transitions_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_transitions" ADD CONSTRAINT "workflow_transitions_from_step_fk" FOREIGN KEY ("workflow_id","from_step_id") REFERENCES "public"."workflow_steps"("workflow_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_transitions" ADD CONSTRAINT "workflow_transitions_to_step_fk" FOREIGN KEY ("workflow_id","to_step_id") REFERENCES "public"."workflow_steps"("workflow_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workflow_entries_contact_id_index" ON "workflow_entries" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "workflow_execution_counts_workflow_id_index" ON "workflow_execution_counts" USING btree ("workflow_id");--> statement-breakpoint
CREATE INDEX "workflow_executions_due_index" ON "workflow_executions" USING btree ("due_at") WHERE "workflow_executions"."due_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "workflow_executions_workflow_id_started_at_index" ON "workflow_executions" USING btree ("workflow_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_executions_one_active" ON "workflow_executions" USING btree ("workflow_id","contact_id") WHERE "workflow_executions"."status" IN ('RUNNING', 'WAITING');--> statement-breakpoint
CREATE INDEX "workflow_executions_waiting_index" ON "workflow_executions" USING btree ("contact_id","waiting_for") WHERE "workflow_executions"."status" = 'WAITING' AND "workflow_executions"."waiting_for" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "workflow_executions_active_index" ON "workflow_executions" USING btree ("project_id","due_at") WHERE "workflow_executions"."status" IN ('RUNNING', 'WAITING');--> statement-breakpoint
CREATE INDEX "workflow_step_executions_execution_id_created_at_index" ON "workflow_step_executions" USING btree ("execution_id","created_at");--> statement-breakpoint
CREATE INDEX "workflow_step_executions_step_id_index" ON "workflow_step_executions" USING btree ("step_id");--> statement-breakpoint
CREATE INDEX "workflow_steps_workflow_id_created_at_index" ON "workflow_steps" USING btree ("workflow_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_steps_one_trigger" ON "workflow_steps" USING btree ("workflow_id") WHERE "workflow_steps"."type" = 'TRIGGER';--> statement-breakpoint
CREATE INDEX "workflow_steps_template_index" ON "workflow_steps" USING btree ("template_id") WHERE "workflow_steps"."template_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "workflow_transitions_from_step_id_priority_index" ON "workflow_transitions" USING btree ("from_step_id","priority");--> statement-breakpoint
CREATE INDEX "workflow_transitions_to_step_id_index" ON "workflow_transitions" USING btree ("to_step_id");--> statement-breakpoint
CREATE INDEX "workflows_project_id_created_at_index" ON "workflows" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "workflows_trigger_index" ON "workflows" USING btree ("project_id","event_name") WHERE "workflows"."enabled" AND "workflows"."trigger_type" = 'EVENT';--> statement-breakpoint
-- Each statement that changes executions appends, per workflow and status, how many it added or took away;
-- readers sum them. Appending rather than updating one counter row per workflow keeps the engine, the event
-- bus and the API from queueing on (and deadlocking over) that row.
CREATE FUNCTION workflow_execution_counters() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deltas text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT workflow_id, status, 1 AS delta FROM new_executions'
    WHEN 'DELETE' THEN 'SELECT workflow_id, status, -1 AS delta FROM old_executions'
    ELSE 'SELECT n.workflow_id, n.status, 1 AS delta FROM new_executions AS n JOIN old_executions AS o USING (id)
            WHERE n.status <> o.status
          UNION ALL
          SELECT o.workflow_id, o.status, -1 FROM new_executions AS n JOIN old_executions AS o USING (id)
            WHERE n.status <> o.status'
  END;
BEGIN
  -- EXECUTE sees the transition tables, so one statement text serves all three operations.
  -- Only for workflows that still exist: deleting one deletes its executions by cascade, after its counts.
  EXECUTE 'INSERT INTO workflow_execution_counts (workflow_id, status, count)
    SELECT x.workflow_id, x.status, sum(x.delta) FROM (' || deltas || ') AS x
    WHERE EXISTS (SELECT 1 FROM workflows AS w WHERE w.id = x.workflow_id)
    GROUP BY x.workflow_id, x.status HAVING sum(x.delta) <> 0';
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER workflow_executions_counted_insert AFTER INSERT ON workflow_executions
  REFERENCING NEW TABLE AS new_executions
  FOR EACH STATEMENT EXECUTE FUNCTION workflow_execution_counters();
--> statement-breakpoint
CREATE TRIGGER workflow_executions_counted_update AFTER UPDATE ON workflow_executions
  REFERENCING OLD TABLE AS old_executions NEW TABLE AS new_executions
  FOR EACH STATEMENT EXECUTE FUNCTION workflow_execution_counters();
--> statement-breakpoint
CREATE TRIGGER workflow_executions_counted_delete AFTER DELETE ON workflow_executions
  REFERENCING OLD TABLE AS old_executions
  FOR EACH STATEMENT EXECUTE FUNCTION workflow_execution_counters();
--> statement-breakpoint
-- A deleted workflow's counts go with it (the table has no foreign key, see above).
CREATE FUNCTION workflow_execution_counts_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM workflow_execution_counts AS c USING old_workflows AS w WHERE c.workflow_id = w.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER workflows_forget_counts AFTER DELETE ON workflows
  REFERENCING OLD TABLE AS old_workflows
  FOR EACH STATEMENT EXECUTE FUNCTION workflow_execution_counts_forget();
