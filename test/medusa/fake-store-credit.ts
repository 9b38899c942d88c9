import type { MedusaContainer } from '@medusajs/framework/types';
import { FakeMedusaContainer } from './fake-medusa-container';

interface Account {
  id: string;
  customer_id: string;
  currency_code: string;
  code: string;
}

interface Transaction {
  id: string;
  account_id: string;
  type: 'credit' | 'debit';
  amount: number;
  reference: string;
  reference_id: string;
  note: string;
}

const matches = (row: object, filters: Record<string, unknown>) => Object.entries(filters).every(([key, value]) => [value].flat().includes((row as Record<string, unknown>)[key]));

/**
 * The Store Credit Module of @medusajs/loyalty-plugin (not installed here) as the plugin reads it:
 * its generated list methods filter on any column, as MedusaService's do. A test that wants the
 * module sets `fake.storeCredit = new FakeStoreCreditModule()`; without it the container has no
 * `store_credit`, as a store without the loyalty plugin.
 */
export class FakeStoreCreditModule {
  readonly accounts: Account[] = [];
  readonly transactions: Transaction[] = [];
  /** Set: the credit workflow refuses with this message. */
  refuseCredits: string | null = null;

  async listStoreCreditAccounts(filters: Record<string, unknown>) {
    return this.accounts.filter((account) => matches(account, filters)).map((account) => ({ ...account, balance: this.balanceOf(account.id) }));
  }

  async listAccountTransactions(filters: Record<string, unknown>) {
    return this.transactions.filter((transaction) => matches(transaction, filters)).map((transaction) => ({ ...transaction }));
  }

  /** What the account holds: credits less debits. */
  balanceOf(accountId: string): number {
    return this.transactions.filter((t) => t.account_id === accountId).reduce((sum, t) => sum + (t.type === 'credit' ? t.amount : -t.amount), 0);
  }
}

const moduleOf = (container: MedusaContainer) => {
  const module = FakeMedusaContainer.of(container).storeCredit;
  if (!module) throw new Error('Could not resolve store_credit');
  return module;
};

/**
 * The loyalty plugin's store credit workflows (@medusajs/loyalty-plugin/workflows) as the plugin runs
 * them, writing to the fake module of the container: a test hands them to
 * `jest.doMock('@medusajs/loyalty-plugin/workflows', () => fakeStoreCreditWorkflows, { virtual: true })`.
 */
export const fakeStoreCreditWorkflows = {
  createStoreCreditAccountsWorkflow: (container: MedusaContainer) => ({
    async run({ input }: { input: Array<{ customer_id: string; currency_code: string }> }) {
      const module = moduleOf(container);
      const result = input.map((data) => {
        // The unique index on (customer_id, currency_code).
        if (module.accounts.some((account) => account.customer_id === data.customer_id && account.currency_code === data.currency_code)) throw new Error('Store credit account already exists');
        const account = { ...data, id: `sc_acc_${module.accounts.length + 1}`, code: `SC-${module.accounts.length + 1}` };
        module.accounts.push(account);
        return account;
      });
      return { result };
    },
  }),
  creditAccountsWorkflow: (container: MedusaContainer) => ({
    async run({ input }: { input: Array<Omit<Transaction, 'id' | 'type'>> }) {
      const module = moduleOf(container);
      if (module.refuseCredits) throw new Error(module.refuseCredits);
      const result = input.map((data) => {
        if (!module.accounts.some((account) => account.id === data.account_id)) throw new Error(`StoreCreditAccount with id: ${data.account_id} was not found`);
        const transaction: Transaction = { ...data, id: `sc_trx_${module.transactions.length + 1}`, type: 'credit' };
        module.transactions.push(transaction);
        return transaction;
      });
      return { result };
    },
  }),
};
