import type { Executor } from '../db/transaction';
import { enqueueMail } from '../mail/enqueue-mail';
import { welcomeMail } from '../mail/program-mail';
import { type Advocate, type CreateAdvocateInput, createAdvocate } from './advocates';

/** A merchant (or the advocate themselves) enrols an advocate: the advocate, their code, and the welcome email with their share link. */
export async function enrollAdvocate(trx: Executor, brandId: string, input: CreateAdvocateInput): Promise<Advocate> {
  const advocate = await createAdvocate(trx, brandId, input);
  await enqueueMail(trx, [welcomeMail(brandId, advocate.advocate_id)]);
  return advocate;
}
