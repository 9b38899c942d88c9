/** Order, line item and refund nodes as the GraphQL Admin API returns them, for the fake Admin API's shops. */

/** The currency of the shop these orders come from: the brand installed for it sells in it. */
export const SHOP_CURRENCY = 'EUR';

/** A MoneyBag of a shop in EUR selling in EUR. */
export const money = (amount: string, presentment = amount) => ({
  shopMoney: { amount, currencyCode: 'EUR' },
  presentmentMoney: { amount: presentment, currencyCode: 'EUR' },
});

/** A line item node as the GraphQL Admin API returns it. */
export function graphqlLine(id: string, options: { title?: string; quantity?: number; price?: string; code?: string; discount?: string } = {}) {
  return {
    id: `gid://shopify/LineItem/${id}`,
    title: options.title ?? 'Tee',
    name: options.title ?? 'Tee',
    quantity: options.quantity ?? 1,
    currentQuantity: options.quantity ?? 1,
    sku: 'TEE-1',
    variantTitle: null,
    isGiftCard: false,
    originalUnitPriceSet: money(options.price ?? '61.00'),
    discountAllocations: options.code ? [{ allocatedAmountSet: money(options.discount ?? '12.00'), discountApplication: { __typename: 'DiscountCodeApplication', code: options.code } }] : [],
  };
}

/** A refund node: one successful refund transaction per amount. */
export function graphqlRefund(id: string, amounts: string[]) {
  return {
    id: `gid://shopify/Refund/${id}`,
    note: null,
    createdAt: '2026-11-10T10:00:00Z',
    transactions: {
      nodes: amounts.map((amount, index) => ({
        id: `gid://shopify/OrderTransaction/${id}${index}`,
        kind: 'REFUND',
        status: 'SUCCESS',
        test: false,
        processedAt: '2026-11-10T10:00:00Z',
        amountSet: money(amount),
      })),
    },
    refundLineItems: { nodes: [] as Array<Record<string, unknown>> },
    refundShippingLines: { nodes: [] as Array<Record<string, unknown>> },
  };
}

/** An Order node as the GraphQL Admin API returns it. */
export function graphqlOrder(
  id: string,
  options: { email: string; codes?: string[]; status?: string; total?: string; refunds?: Array<{ id: string; amount: string }>; lines?: ReturnType<typeof graphqlLine>[]; refundNodes?: ReturnType<typeof graphqlRefund>[] },
) {
  const total = options.total ?? '120.00';
  const discounts = options.codes?.length ? '12.00' : '0.00';
  return {
    id: `gid://shopify/Order/${id}`,
    name: `#${id.slice(-4)}`,
    email: options.email,
    test: false,
    displayFinancialStatus: options.status ?? 'PAID',
    currencyCode: 'EUR',
    presentmentCurrencyCode: 'EUR',
    cancelledAt: null as string | null,
    cancelReason: null as string | null,
    totalPriceSet: money(total),
    subtotalPriceSet: money('110.00'),
    totalDiscountsSet: money(discounts),
    totalTaxSet: money('5.00'),
    totalShippingPriceSet: money('5.00'),
    currentTotalPriceSet: money(total),
    currentSubtotalPriceSet: money('110.00'),
    currentTotalDiscountsSet: money(discounts),
    currentTotalTaxSet: money('5.00'),
    currentShippingPriceSet: money('5.00'),
    discountCodes: options.codes ?? [],
    customAttributes: [],
    customerJourneySummary: null,
    lineItems: { nodes: options.lines ?? [graphqlLine('866550311766439020', { quantity: 2, code: options.codes?.[0] })] },
    refunds: options.refundNodes ?? (options.refunds ?? []).map((refund) => graphqlRefund(refund.id, [refund.amount])),
  };
}
