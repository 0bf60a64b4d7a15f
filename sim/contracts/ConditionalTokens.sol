// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {SimInit, SimERC20} from "./Tokens.sol";

// Gnosis ConditionalTokens as deployed for alpha: the same events and the same split / merge / redeem
// mechanics (collateral pulled, positions batch-minted; merge batch-burns and returns collateral; redeem
// burns each held index set and pays out). Id derivation follows sim/world/ids.ts: the collectionId is
// keccak256(parentCollectionId, conditionId, indexSet) without the real CTF's elliptic-curve addition.
// Only splits from collateral (parentCollectionId = 0) with a full partition are supported.
contract ConditionalTokens is SimInit {
    event ConditionPreparation(
        bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount
    );
    event ConditionResolution(
        bytes32 indexed conditionId,
        address indexed oracle,
        bytes32 indexed questionId,
        uint256 outcomeSlotCount,
        uint256[] payoutNumerators
    );
    event PositionSplit(
        address indexed stakeholder,
        address collateralToken,
        bytes32 indexed parentCollectionId,
        bytes32 indexed conditionId,
        uint256[] partition,
        uint256 amount
    );
    event PositionsMerge(
        address indexed stakeholder,
        address collateralToken,
        bytes32 indexed parentCollectionId,
        bytes32 indexed conditionId,
        uint256[] partition,
        uint256 amount
    );
    event PayoutRedemption(
        address indexed redeemer,
        address indexed collateralToken,
        bytes32 indexed parentCollectionId,
        bytes32 conditionId,
        uint256[] indexSets,
        uint256 payout
    );
    event TransferSingle(
        address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value
    );
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    mapping(uint256 => mapping(address => uint256)) internal balances;
    mapping(address => mapping(address => bool)) internal operatorApproval;
    mapping(address => bool) public trustedOperator;
    mapping(bytes32 => uint256[]) public payoutNumerators;
    mapping(bytes32 => uint256) public payoutDenominator;

    function initCtf() external {
        _init();
    }

    function setTrusted(address operator, bool trusted) external onlyAdmin {
        trustedOperator[operator] = trusted;
    }

    // ---------------------------------------------------------------- ids

    function getConditionId(address oracle, bytes32 questionId, uint256 outcomeSlotCount)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encodePacked(oracle, questionId, outcomeSlotCount));
    }

    function getCollectionId(bytes32 parentCollectionId, bytes32 conditionId, uint256 indexSet)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encodePacked(parentCollectionId, conditionId, indexSet));
    }

    function getPositionId(address collateralToken, bytes32 collectionId) public pure returns (uint256) {
        return uint256(keccak256(abi.encodePacked(collateralToken, collectionId)));
    }

    function getOutcomeSlotCount(bytes32 conditionId) external view returns (uint256) {
        return payoutNumerators[conditionId].length;
    }

    // ---------------------------------------------------------------- conditions

    function prepareCondition(address oracle, bytes32 questionId, uint256 outcomeSlotCount) external {
        require(outcomeSlotCount <= 256 && outcomeSlotCount > 1, "bad outcome count");
        bytes32 conditionId = getConditionId(oracle, questionId, outcomeSlotCount);
        require(payoutNumerators[conditionId].length == 0, "condition already prepared");
        payoutNumerators[conditionId] = new uint256[](outcomeSlotCount);
        emit ConditionPreparation(conditionId, oracle, questionId, outcomeSlotCount);
    }

    function reportPayouts(bytes32 questionId, uint256[] calldata payouts) external {
        uint256 outcomeSlotCount = payouts.length;
        bytes32 conditionId = getConditionId(msg.sender, questionId, outcomeSlotCount);
        require(payoutNumerators[conditionId].length == outcomeSlotCount, "condition not prepared");
        require(payoutDenominator[conditionId] == 0, "payout denominator already set");
        uint256 den = 0;
        for (uint256 i = 0; i < outcomeSlotCount; i++) {
            den += payouts[i];
            payoutNumerators[conditionId][i] = payouts[i];
        }
        require(den > 0, "payout is all zeroes");
        payoutDenominator[conditionId] = den;
        emit ConditionResolution(conditionId, msg.sender, questionId, outcomeSlotCount, payouts);
    }

    // ---------------------------------------------------------------- split / merge / redeem

    function _positions(address collateralToken, bytes32 conditionId, uint256[] calldata partition, uint256 amount)
        internal
        view
        returns (uint256[] memory ids, uint256[] memory amounts)
    {
        uint256 slots = payoutNumerators[conditionId].length;
        require(slots > 0, "condition not prepared");
        uint256 full = (1 << slots) - 1;
        uint256 seen = 0;
        ids = new uint256[](partition.length);
        amounts = new uint256[](partition.length);
        for (uint256 i = 0; i < partition.length; i++) {
            uint256 indexSet = partition[i];
            require(indexSet > 0 && indexSet < full + 1 && (seen & indexSet) == 0, "bad partition");
            seen |= indexSet;
            ids[i] = getPositionId(collateralToken, getCollectionId(bytes32(0), conditionId, indexSet));
            amounts[i] = amount;
        }
        require(seen == full, "partial partitions unsupported");
    }

    function splitPosition(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external {
        require(parentCollectionId == bytes32(0), "nested positions unsupported");
        (uint256[] memory ids, uint256[] memory amounts) = _positions(collateralToken, conditionId, partition, amount);
        require(SimERC20(collateralToken).transferFrom(msg.sender, address(this), amount), "collateral");
        for (uint256 i = 0; i < ids.length; i++) {
            balances[ids[i]][msg.sender] += amount;
        }
        emit TransferBatch(msg.sender, address(0), msg.sender, ids, amounts);
        emit PositionSplit(msg.sender, collateralToken, parentCollectionId, conditionId, partition, amount);
    }

    function mergePositions(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external {
        require(parentCollectionId == bytes32(0), "nested positions unsupported");
        (uint256[] memory ids, uint256[] memory amounts) = _positions(collateralToken, conditionId, partition, amount);
        for (uint256 i = 0; i < ids.length; i++) {
            uint256 bal = balances[ids[i]][msg.sender];
            require(bal >= amount, "merge balance");
            unchecked {
                balances[ids[i]][msg.sender] = bal - amount;
            }
        }
        emit TransferBatch(msg.sender, msg.sender, address(0), ids, amounts);
        require(SimERC20(collateralToken).transfer(msg.sender, amount), "collateral");
        emit PositionsMerge(msg.sender, collateralToken, parentCollectionId, conditionId, partition, amount);
    }

    function redeemPositions(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata indexSets
    ) external {
        require(parentCollectionId == bytes32(0), "nested positions unsupported");
        uint256 den = payoutDenominator[conditionId];
        require(den > 0, "result for condition not received yet");
        uint256 slots = payoutNumerators[conditionId].length;
        uint256 totalPayout = 0;
        for (uint256 i = 0; i < indexSets.length; i++) {
            uint256 indexSet = indexSets[i];
            require(indexSet > 0 && indexSet < (1 << slots), "got invalid index set");
            uint256 id = getPositionId(collateralToken, getCollectionId(bytes32(0), conditionId, indexSet));
            uint256 num = 0;
            for (uint256 j = 0; j < slots; j++) {
                if (indexSet & (1 << j) != 0) num += payoutNumerators[conditionId][j];
            }
            uint256 stake = balances[id][msg.sender];
            if (stake > 0) {
                totalPayout += (stake * num) / den;
                balances[id][msg.sender] = 0;
                emit TransferSingle(msg.sender, msg.sender, address(0), id, stake);
            }
        }
        if (totalPayout > 0) {
            require(SimERC20(collateralToken).transfer(msg.sender, totalPayout), "collateral");
        }
        emit PayoutRedemption(msg.sender, collateralToken, parentCollectionId, conditionId, indexSets, totalPayout);
    }

    // ---------------------------------------------------------------- ERC-1155

    function balanceOf(address owner, uint256 id) external view returns (uint256) {
        return balances[id][owner];
    }

    function balanceOfBatch(address[] calldata owners, uint256[] calldata ids)
        external
        view
        returns (uint256[] memory out)
    {
        require(owners.length == ids.length, "length mismatch");
        out = new uint256[](owners.length);
        for (uint256 i = 0; i < owners.length; i++) {
            out[i] = balances[ids[i]][owners[i]];
        }
    }

    function setApprovalForAll(address operator, bool approved) external {
        operatorApproval[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address owner, address operator) public view returns (bool) {
        return operatorApproval[owner][operator] || trustedOperator[operator];
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata) external {
        require(from == msg.sender || isApprovedForAll(from, msg.sender), "not approved");
        require(to != address(0), "to zero");
        uint256 bal = balances[id][from];
        require(bal >= value, "erc1155 balance");
        unchecked {
            balances[id][from] = bal - value;
        }
        balances[id][to] += value;
        emit TransferSingle(msg.sender, from, to, id, value);
    }

    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata
    ) external {
        require(from == msg.sender || isApprovedForAll(from, msg.sender), "not approved");
        require(to != address(0), "to zero");
        require(ids.length == values.length, "length mismatch");
        for (uint256 i = 0; i < ids.length; i++) {
            uint256 bal = balances[ids[i]][from];
            require(bal >= values[i], "erc1155 balance");
            unchecked {
                balances[ids[i]][from] = bal - values[i];
            }
            balances[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
    }
}
