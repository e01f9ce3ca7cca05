/** JSON schemas of the controls resource. */
import { CONTROL_IDS } from '../../../controls/index.js';

export const controlListSchema = {
  type: 'object',
  required: ['controls'],
  properties: {
    controls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'label', 'description', 'destructive', 'confirm_template', 'targets'],
        properties: {
          id: { type: 'string', enum: CONTROL_IDS },
          label: { type: 'string' },
          description: { type: 'string' },
          destructive: { type: 'boolean' },
          confirm_template: { type: 'string', description: 'e.g. pause-job:<job id>' },
          targets: {
            type: 'array',
            items: {
              type: 'object',
              required: ['target', 'label', 'state', 'available', 'confirm'],
              properties: {
                target: { type: 'string' },
                label: { type: 'string' },
                state: { type: 'string' },
                available: { type: 'boolean', description: 'whether the control applies to the target in its current state' },
                confirm: { type: 'string', description: 'the confirm string this target needs' },
                detail: { type: 'string', description: 'what to review before applying, in full: a pending MCP manifest change as a per-tool diff of old and new description and schema' },
              },
            },
          },
        },
      },
    },
  },
} as const;
