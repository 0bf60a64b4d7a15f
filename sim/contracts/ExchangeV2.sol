// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {SimInit, SimERC20, CollateralToken} from "./Tokens.sol";
import {ConditionalTokens} from "./ConditionalTokens.sol";
import {NegRiskAdapter} from "./NegRisk.sol";

interface IOutcomeTokenFactory {
    function splitPosition(address, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount) external;
    function mergePositions(address, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount) external;
}

// CTF Exchange V2 (standard and neg-risk instances), after ctf-exchange-v2 Trading.sol: collateral pUSD,
// fees operator-supplied per order in pUSD (BUY pays on top, SELL nets less), one fee receiver, orders
// carry `builder` and `metadata`. An all-COMPLEMENTARY match settles peer to peer; otherwise makers' assets
// come to the exchange, MINT and MERGE amounts run as one call on the collateral adapter, proceeds are
// distributed, then the taker settles. Each maker emits OrderFilled(taker = taker order's maker); the taker
// emits OrderFilled(taker = exchange) followed by OrdersMatched.
//
// Packed operator input (sim/chain/orders.ts):
//   match = [makerCount, conditionId, takerOrder(10 words), makerOrder(10 words) x makerCount]
//   order = [salt, maker, tokenId, makerAmount, takerAmount, side, fillAmount, fee, builder, metadata]
contract CTFExchangeV2 is SimInit {
    event OrderFilled(
        bytes32 indexed orderHash,
        address indexed maker,
        address indexed taker,
        uint8 side,
        uint256 tokenId,
        uint256 makerAmountFilled,
        uint256 takerAmountFilled,
        uint256 fee,
        bytes32 builder,
        bytes32 metadata
    );
    event OrdersMatched(
        bytes32 indexed takerOrderHash,
        address indexed takerOrderMaker,
        uint8 side,
        uint256 tokenId,
        uint256 makerAmountFilled,
        uint256 takerAmountFilled
    );
    event FeeCharged(address indexed receiver, uint256 amount);

    bytes32 public constant ORDER_TYPEHASH = keccak256(
        "Order(uint256 salt,address maker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,bytes32 builder,bytes32 metadata)"
    );
    uint256 internal constant ORDER_WORDS = 10;

    struct Order {
        uint256 salt;
        address maker;
        uint256 tokenId;
        uint256 makerAmount;
        uint256 takerAmount;
        uint8 side;
        uint256 fill;
        uint256 fee;
        bytes32 builder;
        bytes32 metadata;
    }

    struct Prepared {
        bytes32 orderHash;
        uint256 making;
        uint256 taking;
        uint256 takerAssetId;
    }

    SimERC20 public collateral;
    ConditionalTokens public ctf;
    IOutcomeTokenFactory public outcomeTokenFactory;
    address public feeReceiver;
    uint256 public maxFeeRateBps;
    mapping(address => bool) public operators;

    modifier onlyOperator() {
        require(operators[msg.sender], "not operator");
        _;
    }

    function initExchange(address _collateral, address _ctf, address _factory, address _feeReceiver) external {
        _init();
        collateral = SimERC20(_collateral);
        ctf = ConditionalTokens(_ctf);
        outcomeTokenFactory = IOutcomeTokenFactory(_factory);
        feeReceiver = _feeReceiver;
        maxFeeRateBps = 500;
        operators[msg.sender] = true;
    }

    function addOperator(address op) external onlyAdmin {
        operators[op] = true;
    }

    function matchBatch(uint256[] calldata w) external onlyOperator {
        uint256 p = 0;
        while (p < w.length) {
            p = _matchOne(w, p);
        }
    }

    // ---------------------------------------------------------------- helpers

    function _read(uint256[] calldata w, uint256 p) internal pure returns (Order memory o) {
        o.salt = w[p];
        o.maker = address(uint160(w[p + 1]));
        o.tokenId = w[p + 2];
        o.makerAmount = w[p + 3];
        o.takerAmount = w[p + 4];
        require(w[p + 5] <= 1, "bad side");
        o.side = uint8(w[p + 5]);
        o.fill = w[p + 6];
        o.fee = w[p + 7];
        o.builder = bytes32(w[p + 8]);
        o.metadata = bytes32(w[p + 9]);
        require(o.makerAmount > 0 && o.takerAmount > 0, "bad order");
    }

    function hashOrder(Order memory o) public pure returns (bytes32) {
        return keccak256(
            abi.encode(
                ORDER_TYPEHASH, o.salt, o.maker, o.tokenId, o.makerAmount, o.takerAmount, o.side, o.builder, o.metadata
            )
        );
    }

    /// Checks the fee bound and returns (taking, hash).
    function _checks(Order memory o) internal view returns (uint256 taking, bytes32 h) {
        h = hashOrder(o);
        require(o.fill <= o.makerAmount, "making gt remaining");
        taking = (o.fill * o.takerAmount) / o.makerAmount;
        if (o.fee != 0) {
            uint256 cash = o.side == 0 ? o.fill : taking;
            require(o.fee * 10_000 <= cash * maxFeeRateBps, "fee exceeds max rate");
        }
    }

    function _emitFilled(Order memory o, bytes32 h, address taker, uint256 making, uint256 taking) internal {
        emit OrderFilled(h, o.maker, taker, o.side, o.tokenId, making, taking, o.fee, o.builder, o.metadata);
    }

    function _transfer(address from, address to, uint256 id, uint256 value) internal {
        if (value == 0) return;
        if (id == 0) {
            if (from == address(this)) collateral.transfer(to, value);
            else collateral.transferFrom(from, to, value);
        } else {
            ctf.safeTransferFrom(from, to, id, value, "");
        }
    }

    function _chargeFee(address payer, uint256 fee) internal {
        if (fee > 0) {
            _transfer(payer, feeReceiver, 0, fee);
            emit FeeCharged(feeReceiver, fee);
        }
    }

    function _balance(uint256 id) internal view returns (uint256) {
        return id == 0 ? collateral.balanceOf(address(this)) : ctf.balanceOf(address(this), id);
    }

    function _partition() internal pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = 1;
        p[1] = 2;
    }

    // ---------------------------------------------------------------- matching

    function _matchOne(uint256[] calldata w, uint256 p) internal returns (uint256) {
        uint256 n = w[p];
        bytes32 conditionId = bytes32(w[p + 1]);
        Order memory t = _read(w, p + 2);
        uint256 first = p + 2 + ORDER_WORDS;
        uint256 next = first + n * ORDER_WORDS;

        bool allComplementary = true;
        for (uint256 i = 0; i < n; i++) {
            if (w[first + i * ORDER_WORDS + 5] == t.side) {
                allComplementary = false;
                break;
            }
        }
        if (allComplementary) _settleComplementary(w, first, n, t);
        else _settleThroughExchange(w, first, n, t, conditionId);
        return next;
    }

    function _settleComplementary(uint256[] calldata w, uint256 first, uint256 n, Order memory t) internal {
        (uint256 tMinTaking, bytes32 tHash) = _checks(t);
        bool takerIsBuy = t.side == 0;
        uint256 totalMakerFees = 0;
        uint256 totalTakerReceives = 0;
        uint256 totalTakerGives = 0;
        for (uint256 i = 0; i < n; i++) {
            Order memory m = _read(w, first + i * ORDER_WORDS);
            require(m.tokenId == t.tokenId, "mismatched token ids");
            (uint256 taking, bytes32 h) = _checks(m);
            if (takerIsBuy) {
                // maker SELL: shares maker -> taker, collateral taker -> maker (less the maker's fee)
                _transfer(m.maker, t.maker, m.tokenId, m.fill);
                require(m.fee <= taking, "fee exceeds proceeds");
                if (m.fee > 0) {
                    totalMakerFees += m.fee;
                    emit FeeCharged(feeReceiver, m.fee);
                }
                _transfer(t.maker, m.maker, 0, taking - m.fee);
                totalTakerReceives += m.fill;
                totalTakerGives += taking;
            } else {
                // maker BUY: shares taker -> maker, collateral maker -> exchange
                _transfer(t.maker, m.maker, t.tokenId, taking);
                _transfer(m.maker, address(this), 0, m.fill);
                totalTakerReceives += m.fill;
                totalTakerGives += taking;
                _chargeFee(m.maker, m.fee);
            }
            _emitFilled(m, h, t.maker, m.fill, taking);
        }
        if (totalMakerFees > 0) _transfer(t.maker, feeReceiver, 0, totalMakerFees);

        require(totalTakerReceives >= tMinTaking, "too little tokens received");
        require(totalTakerGives == t.fill, "taker fill mismatch");
        if (takerIsBuy) {
            _chargeFee(t.maker, t.fee);
        } else {
            require(t.fee <= totalTakerReceives, "fee exceeds proceeds");
            if (t.fee > 0) {
                emit FeeCharged(feeReceiver, t.fee);
                _transfer(address(this), feeReceiver, 0, t.fee);
            }
            _transfer(address(this), t.maker, 0, totalTakerReceives - t.fee);
        }
        // Taker BUY: shares received = the makers' fills (the real contract's event repeats the making
        // amount here; the sim emits the shares, see docs/decisions.md).
        _emitFilled(t, tHash, address(this), t.fill, totalTakerReceives);
        emit OrdersMatched(tHash, t.maker, t.side, t.tokenId, t.fill, totalTakerReceives);
    }

    function _settleThroughExchange(
        uint256[] calldata w,
        uint256 first,
        uint256 n,
        Order memory t,
        bytes32 conditionId
    ) internal {
        (uint256 tMinTaking, bytes32 tHash) = _checks(t);
        uint256 tMakerAsset = t.side == 0 ? 0 : t.tokenId;
        uint256 tTakerAsset = t.side == 0 ? t.tokenId : 0;
        _transfer(t.maker, address(this), tMakerAsset, t.fill);

        Prepared[] memory prep = new Prepared[](n);
        uint256 totalMint = 0;
        uint256 totalMerge = 0;
        for (uint256 i = 0; i < n; i++) {
            Order memory m = _read(w, first + i * ORDER_WORDS);
            (uint256 taking, bytes32 h) = _checks(m);
            uint256 mMakerAsset = m.side == 0 ? 0 : m.tokenId;
            prep[i] = Prepared(h, m.fill, taking, m.side == 0 ? m.tokenId : 0);
            _transfer(m.maker, address(this), mMakerAsset, m.fill);
            if (m.side == t.side) {
                require(m.tokenId != t.tokenId, "not the complement token");
                if (m.side == 0) totalMint += taking;
                else totalMerge += m.fill;
            } else {
                require(m.tokenId == t.tokenId, "mismatched token ids");
            }
        }
        if (totalMint > 0) outcomeTokenFactory.splitPosition(address(collateral), 0, conditionId, _partition(), totalMint);
        if (totalMerge > 0) {
            outcomeTokenFactory.mergePositions(address(collateral), 0, conditionId, _partition(), totalMerge);
        }

        uint256 makerExchangeFees = 0;
        for (uint256 i = 0; i < n; i++) {
            Order memory m = _read(w, first + i * ORDER_WORDS);
            Prepared memory pr = prep[i];
            uint256 proceeds = pr.taking;
            if (m.side == 1) {
                require(m.fee <= pr.taking, "fee exceeds proceeds");
                proceeds -= m.fee;
                makerExchangeFees += m.fee;
            }
            _transfer(address(this), m.maker, pr.takerAssetId, proceeds);
            if (m.side == 1) {
                if (m.fee > 0) emit FeeCharged(feeReceiver, m.fee);
            } else {
                _chargeFee(m.maker, m.fee);
            }
            _emitFilled(m, pr.orderHash, t.maker, pr.making, pr.taking);
        }
        if (makerExchangeFees > 0) _transfer(address(this), feeReceiver, 0, makerExchangeFees);

        uint256 taking = _balance(tTakerAsset);
        require(taking >= tMinTaking, "too little tokens received");
        uint256 proceedsT = taking;
        if (t.side == 1) {
            require(t.fee <= taking, "fee exceeds proceeds");
            proceedsT -= t.fee;
        }
        _transfer(address(this), t.maker, tTakerAsset, proceedsT);
        if (t.side == 1) {
            if (t.fee > 0) emit FeeCharged(feeReceiver, t.fee);
        } else {
            _chargeFee(t.maker, t.fee);
        }
        uint256 refund = _balance(tMakerAsset);
        if (refund > 0) _transfer(address(this), t.maker, tMakerAsset, refund);
        _emitFilled(t, tHash, address(this), t.fill, taking);
        emit OrdersMatched(tHash, t.maker, t.side, t.tokenId, t.fill, taking);
        if (t.side == 1 && t.fee > 0) _transfer(address(this), feeReceiver, 0, t.fee);
    }
}

// CtfCollateralAdapter: pUSD-facing split / merge / redeem on the CTF (collateral USDC.e). The CTF sees the
// adapter as stakeholder; the user appears in the TransferBatch and in pUSD Wrapped/Unwrapped `to`.
contract CtfCollateralAdapter is SimInit {
    ConditionalTokens public conditionalTokens;
    address public collateralToken;
    address public usdce;

    function initCollateralAdapter(address _ctf, address _collateralToken, address _usdce) public virtual {
        _init();
        conditionalTokens = ConditionalTokens(_ctf);
        collateralToken = _collateralToken;
        usdce = _usdce;
    }

    function _partition() internal pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = 1;
        p[1] = 2;
    }

    function _pair(uint256 a, uint256 b) internal pure returns (uint256[] memory v) {
        v = new uint256[](2);
        v[0] = a;
        v[1] = b;
    }

    function splitPosition(address, bytes32, bytes32 _conditionId, uint256[] calldata, uint256 _amount) external {
        SimERC20(collateralToken).transferFrom(msg.sender, collateralToken, _amount);
        CollateralToken(collateralToken).unwrap(usdce, address(this), _amount, address(0), "");
        _splitPosition(_conditionId, _amount);
        conditionalTokens.safeBatchTransferFrom(
            address(this), msg.sender, _getPositionIds(_conditionId), _pair(_amount, _amount), ""
        );
    }

    function mergePositions(address, bytes32, bytes32 _conditionId, uint256[] calldata, uint256 _amount) external {
        conditionalTokens.safeBatchTransferFrom(
            msg.sender, address(this), _getPositionIds(_conditionId), _pair(_amount, _amount), ""
        );
        _mergePositions(_conditionId, _amount);
        SimERC20(usdce).transfer(collateralToken, _amount);
        CollateralToken(collateralToken).wrap(usdce, msg.sender, _amount, address(0), "");
    }

    function redeemPositions(address, bytes32, bytes32 _conditionId, uint256[] calldata) external {
        uint256[] memory ids = _getPositionIds(_conditionId);
        uint256[] memory amounts = _pair(
            conditionalTokens.balanceOf(msg.sender, ids[0]), conditionalTokens.balanceOf(msg.sender, ids[1])
        );
        conditionalTokens.safeBatchTransferFrom(msg.sender, address(this), ids, amounts, "");
        _redeemPositions(_conditionId);
        uint256 amount = SimERC20(usdce).balanceOf(address(this));
        SimERC20(usdce).transfer(collateralToken, amount);
        CollateralToken(collateralToken).wrap(usdce, msg.sender, amount, address(0), "");
    }

    function _getPositionIds(bytes32 _conditionId) internal view virtual returns (uint256[] memory) {
        return _idsFor(usdce, _conditionId);
    }

    function _idsFor(address collateral, bytes32 _conditionId) internal view returns (uint256[] memory) {
        return _pair(
            conditionalTokens.getPositionId(collateral, conditionalTokens.getCollectionId(bytes32(0), _conditionId, 1)),
            conditionalTokens.getPositionId(collateral, conditionalTokens.getCollectionId(bytes32(0), _conditionId, 2))
        );
    }

    function _splitPosition(bytes32 _conditionId, uint256 _amount) internal virtual {
        conditionalTokens.splitPosition(usdce, bytes32(0), _conditionId, _partition(), _amount);
    }

    function _mergePositions(bytes32 _conditionId, uint256 _amount) internal virtual {
        conditionalTokens.mergePositions(usdce, bytes32(0), _conditionId, _partition(), _amount);
    }

    function _redeemPositions(bytes32 _conditionId) internal virtual {
        conditionalTokens.redeemPositions(usdce, bytes32(0), _conditionId, _partition());
    }
}

// NegRiskCtfCollateralAdapter: the same over the NegRiskAdapter (positions collateralised by WCOL).
contract NegRiskCtfCollateralAdapter is CtfCollateralAdapter {
    NegRiskAdapter public negRiskAdapter;
    address public wrappedCollateral;

    function initNegRiskCollateralAdapter(address _negRiskAdapter, address _wcol) external onlyAdmin {
        negRiskAdapter = NegRiskAdapter(_negRiskAdapter);
        wrappedCollateral = _wcol;
    }

    function _getPositionIds(bytes32 _conditionId) internal view override returns (uint256[] memory) {
        return _idsFor(wrappedCollateral, _conditionId);
    }

    function _splitPosition(bytes32 _conditionId, uint256 _amount) internal override {
        negRiskAdapter.splitPosition(_conditionId, _amount);
    }

    function _mergePositions(bytes32 _conditionId, uint256 _amount) internal override {
        negRiskAdapter.mergePositions(_conditionId, _amount);
    }

    function _redeemPositions(bytes32 _conditionId) internal override {
        uint256[] memory ids = _getPositionIds(_conditionId);
        uint256[] memory amounts = _pair(
            conditionalTokens.balanceOf(address(this), ids[0]), conditionalTokens.balanceOf(address(this), ids[1])
        );
        negRiskAdapter.redeemPositions(_conditionId, amounts);
    }
}
